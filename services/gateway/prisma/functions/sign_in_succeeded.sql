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
