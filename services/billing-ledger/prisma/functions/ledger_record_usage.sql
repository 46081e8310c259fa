-- Records one Settle or Charge call: usage row, its meters, the spend entries.
-- p_collect must be drawable (the callers bound it by what the sources hold).
CREATE OR REPLACE FUNCTION "ledger_record_usage"(
  acc "accounts", p_usage_id uuid, p_hold_id uuid, p_key text, p_capability text, p_reference text,
  p_meters jsonb, p_priced bigint, p_collect bigint, p_now timestamptz, p_period_end timestamptz
) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "usage_records" ("id", "workspace_id", "hold_id", "idempotency_key", "capability", "reference",
                               "priced_mc", "charged_mc", "uncollected_mc", "created_at")
  VALUES (p_usage_id, acc."workspace_id", p_hold_id, p_key, p_capability, p_reference,
          p_priced, p_collect, p_priced - p_collect, p_now);
  INSERT INTO "usage_meters" ("usage_id", "meter", "quantity", "mc")
  SELECT p_usage_id, m."meter", m."quantity", m."mc"
    FROM jsonb_to_recordset(p_meters) AS m("meter" "Meter", "quantity" bigint, "mc" bigint);
  IF "ledger_draw"(acc, p_collect, p_now, p_period_end, p_usage_id, p_hold_id) <> p_collect THEN
    RAISE EXCEPTION 'ledger: could not draw % mc for usage %', p_collect, p_usage_id;
  END IF;
END
$$;
