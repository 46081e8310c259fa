-- The workspace's account, locked, its allowance moved into the current period
-- (the lapsed remainder of the last one simply stops counting).
CREATE OR REPLACE FUNCTION "ledger_lock_account"(p_ws text, p_period_start timestamptz) RETURNS "accounts"
LANGUAGE plpgsql AS $$
DECLARE
  acc "accounts";
BEGIN
  SELECT * INTO acc FROM "accounts" WHERE "workspace_id" = p_ws FOR UPDATE;
  IF FOUND AND acc."allowance_period_start" < p_period_start THEN
    UPDATE "accounts"
       SET "allowance_period_start" = p_period_start, "allowance_mc" = "monthly_allowance_mc",
           "allowance_spent_mc" = 0, "updated_at" = p_period_start
     WHERE "workspace_id" = p_ws
    RETURNING * INTO acc;
  END IF;
  RETURN acc;
END
$$;
