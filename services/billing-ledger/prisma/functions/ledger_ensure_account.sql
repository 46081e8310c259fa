-- Opens the account with the p_open_* terms when it does not exist; then
-- applies whichever of p_plan, p_monthly, p_slots is given (not null).
CREATE OR REPLACE FUNCTION "ledger_ensure_account"(
  p_ws text, p_open_plan text, p_open_monthly bigint, p_open_slots int,
  p_plan text, p_monthly bigint, p_slots int,
  p_now timestamptz, p_period_start timestamptz
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  acc "accounts";
BEGIN
  INSERT INTO "accounts" ("workspace_id", "plan", "monthly_allowance_mc", "slot_limit",
                          "allowance_period_start", "allowance_mc", "created_at", "updated_at")
  VALUES (p_ws, p_open_plan::"Plan", p_open_monthly, p_open_slots, p_period_start, p_open_monthly, p_now, p_now)
  ON CONFLICT ("workspace_id") DO NOTHING;
  acc := "ledger_lock_account"(p_ws, p_period_start);
  IF acc."plan" <> coalesce(p_plan::"Plan", acc."plan")
     OR acc."monthly_allowance_mc" <> coalesce(p_monthly, acc."monthly_allowance_mc")
     OR acc."slot_limit" <> coalesce(p_slots, acc."slot_limit") THEN
    -- A new allowance applies to the current month at once; what was already
    -- spent from it stays spent (so it never drops below that).
    UPDATE "accounts"
       SET "plan" = coalesce(p_plan::"Plan", "plan"),
           "monthly_allowance_mc" = coalesce(p_monthly, "monthly_allowance_mc"),
           "slot_limit" = coalesce(p_slots, "slot_limit"),
           "allowance_mc" = CASE WHEN p_monthly IS NULL OR p_monthly = "monthly_allowance_mc" THEN "allowance_mc"
                                 ELSE greatest(p_monthly, "allowance_spent_mc") END,
           "updated_at" = p_now
     WHERE "workspace_id" = p_ws
    RETURNING * INTO acc;
  END IF;
  RETURN jsonb_build_object('plan', acc."plan", 'slots', acc."slot_limit", 'allowance', acc."monthly_allowance_mc");
END
$$;
