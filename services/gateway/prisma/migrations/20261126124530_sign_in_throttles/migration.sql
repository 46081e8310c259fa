-- CreateTable
CREATE TABLE "sign_in_throttles" (
    "key" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "last_failure_at" TIMESTAMPTZ(3),
    "locked_until" TIMESTAMPTZ(3),
    "last_success_at" TIMESTAMPTZ(3),
    "forget_after" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_in_throttles_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "sign_in_throttles_forget_after_idx" ON "sign_in_throttles"("forget_after");

-- Produced from prisma/functions/ by `wap-db functions`: sign_in_succeeded, sign_in_take.

-- A sign-in that sign_in_take counted went through (docs/oauth.md, "Guessing
-- passwords"); p_keys as there. The address with the account starts again
-- and is remembered, so the account's lock does not hold it for p_known_ms;
-- the address keeps the failures it made on other accounts; the account has
-- this attempt taken back. Their locks, set by this attempt if by anything
-- (a locked key's attempt is never counted), are lifted.
CREATE OR REPLACE FUNCTION sign_in_succeeded(p_keys TEXT[], p_known_ms BIGINT)
RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
  now_at TIMESTAMPTZ := clock_timestamp();
  own INTEGER;
  known BOOLEAN;
BEGIN
  SELECT t.failures, coalesce(t.last_success_at > now_at - p_known_ms * interval '1 millisecond', FALSE)
    INTO own, known FROM sign_in_throttles t WHERE t.key = p_keys[1] FOR UPDATE;
  UPDATE sign_in_throttles t SET failures = 0, locked_until = NULL, last_success_at = now_at,
      forget_after = greatest(t.forget_after, now_at + p_known_ms * interval '1 millisecond')
    WHERE t.key = p_keys[1];
  UPDATE sign_in_throttles t SET failures = greatest(t.failures - coalesce(own, 0), 0), locked_until = NULL
    WHERE t.key = p_keys[2];
  IF NOT known THEN
    UPDATE sign_in_throttles t SET failures = greatest(t.failures - 1, 0), locked_until = NULL
      WHERE t.key = p_keys[3];
  END IF;
END;
$$;

-- Failed sign-ins counted in the gateway's Postgres, so every replica holds
-- the same guesser (docs/oauth.md, "Guessing passwords"). p_keys are, in this
-- order: the client address with the account, the address, the account; the
-- policy arrays give each key's free failures, first wait, longest wait and
-- how long its count lasts without a new failure. An attempt waits while a key
-- is locked, except that the account's lock does not hold an address that
-- signed in to it within p_known_ms; a held attempt is not counted. Otherwise
-- the attempt is counted as a failure before its password is checked (so
-- guesses sent at once all meet one count), and a key with n >= free failures
-- is locked for min(first * 2^(n - free), longest). sign_in_succeeded takes
-- a success back. Rows are locked in the keys' order, the same for everyone.
CREATE OR REPLACE FUNCTION sign_in_take(
  p_keys TEXT[],
  p_free INTEGER[],
  p_first_ms INTEGER[],
  p_longest_ms INTEGER[],
  p_lapse_ms INTEGER[],
  p_known_ms BIGINT)
RETURNS TABLE (allowed BOOLEAN, retry_ms INTEGER, held INTEGER, held_failures INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  now_at TIMESTAMPTZ := clock_timestamp();
  last INTEGER := array_length(p_keys, 1);
  known BOOLEAN := FALSE;
  counts INTEGER[] := '{}';
  wait_ms DOUBLE PRECISION := 0;
  r sign_in_throttles%ROWTYPE;
BEGIN
  INSERT INTO sign_in_throttles (key) SELECT k FROM unnest(p_keys) AS k ON CONFLICT (key) DO NOTHING;
  held := 0;
  held_failures := 0;
  FOR i IN 1 .. last LOOP
    SELECT * INTO r FROM sign_in_throttles t WHERE t.key = p_keys[i] FOR UPDATE;
    IF i = 1 THEN
      known := coalesce(r.last_success_at > now_at - p_known_ms * interval '1 millisecond', FALSE);
    END IF;
    -- A count that lapsed starts again.
    counts[i] := CASE WHEN r.last_failure_at > now_at - p_lapse_ms[i] * interval '1 millisecond' THEN r.failures ELSE 0 END;
    IF r.locked_until > now_at AND NOT (known AND i = last)
       AND extract(epoch FROM r.locked_until - now_at) * 1000 > wait_ms THEN
      wait_ms := extract(epoch FROM r.locked_until - now_at) * 1000;
      held := i;
      held_failures := r.failures;
    END IF;
  END LOOP;
  IF held > 0 THEN
    allowed := FALSE;
    retry_ms := ceil(wait_ms)::INTEGER;
    RETURN NEXT;
    RETURN;
  END IF;
  FOR i IN 1 .. last LOOP
    CONTINUE WHEN known AND i = last;
    UPDATE sign_in_throttles t SET
      failures = counts[i] + 1,
      last_failure_at = now_at,
      locked_until = CASE WHEN counts[i] + 1 >= p_free[i] THEN now_at + least(
        p_first_ms[i] * 2 ^ least(counts[i] + 1 - p_free[i], 30), p_longest_ms[i]) * interval '1 millisecond' END,
      forget_after = greatest(t.forget_after, now_at + greatest(p_lapse_ms[i], p_longest_ms[i]) * interval '1 millisecond')
    WHERE t.key = p_keys[i];
  END LOOP;
  -- Now and then, rows that say nothing any more.
  IF random() < 0.01 THEN
    DELETE FROM sign_in_throttles WHERE key IN (
      SELECT t.key FROM sign_in_throttles t WHERE t.forget_after < now_at LIMIT 1000 FOR UPDATE SKIP LOCKED);
  END IF;
  allowed := TRUE;
  retry_ms := 0;
  RETURN NEXT;
END;
$$;
