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
