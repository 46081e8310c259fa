-- Produced from prisma/functions/ by `wap-db functions`: ledger_settle, ledger_batch.

DROP FUNCTION ledger_settle(p_hold_id uuid, p_key text, p_hash text, p_meters jsonb, p_priced bigint, p_now timestamptz, p_period_start timestamptz, p_period_end timestamptz, p_usage_id uuid);
-- Settle never goes beyond the hold: a charge larger than what is left is
-- refused whole (cap_exceeded), as is any charge on a resolved or expired hold.
-- p_reference names the call billed when one hold serves many (a hold drawn
-- down, decision 0031): its usage row is listed under it, not the hold's.
CREATE OR REPLACE FUNCTION "ledger_settle"(
  p_hold_id uuid, p_key text, p_hash text, p_meters jsonb, p_priced bigint,
  p_now timestamptz, p_period_start timestamptz, p_period_end timestamptz, p_usage_id uuid,
  p_reference text DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ws text;
  acc "accounts";
  h "holds";
  resp jsonb;
  collect bigint;
  settled bigint;
BEGIN
  SELECT "workspace_id" INTO ws FROM "holds" WHERE "id" = p_hold_id;
  IF NOT FOUND THEN RETURN jsonb_build_object('error', 'hold_not_found'); END IF;
  acc := "ledger_lock_account"(ws, p_period_start);
  resp := "ledger_replay"(ws, p_key, p_hash);
  IF resp IS NOT NULL THEN RETURN resp; END IF;
  SELECT * INTO h FROM "holds" WHERE "id" = p_hold_id FOR UPDATE;
  IF h."status" <> 'active' OR h."expires_at" <= p_now THEN
    RETURN jsonb_build_object('error', 'hold_resolved', 'status',
                              CASE WHEN h."status" = 'active' THEN 'expired' ELSE h."status" END,
                              'cap', h."settled_mc", 'spent', h."settled_mc", 'needed', p_priced);
  END IF;
  IF h."settled_mc" + p_priced > h."amount_mc" THEN
    RETURN jsonb_build_object('error', 'cap_exceeded', 'cap', h."amount_mc", 'spent', h."settled_mc", 'needed', p_priced);
  END IF;
  -- The hold reserved this much, so the sources cover it unless one lapsed or
  -- the plan shrank meanwhile; then the rest is recorded as uncollected.
  collect := p_priced;
  IF collect > acc."allowance_mc" - acc."allowance_spent_mc" THEN
    collect := least(collect, acc."allowance_mc" - acc."allowance_spent_mc" + "ledger_grants_left"(ws, p_now));
  END IF;
  PERFORM "ledger_record_usage"(acc, p_usage_id, p_hold_id, p_key, h."capability", coalesce(p_reference, h."reference"),
                                p_meters, p_priced, collect, p_now, p_period_end);
  settled := h."settled_mc" + p_priced;
  UPDATE "holds"
     SET "settled_mc" = settled,
         "status" = (CASE WHEN settled = "amount_mc" THEN 'settled' ELSE 'active' END)::"HoldStatus",
         "resolved_at" = CASE WHEN settled = "amount_mc" THEN p_now END
   WHERE "id" = p_hold_id;
  resp := jsonb_build_object('usage', jsonb_build_object('meters', p_meters, 'millicredits', collect),
                             'hold_remaining', h."amount_mc" - settled);
  INSERT INTO "idempotency_records" VALUES (ws, p_key, 'settle', p_hash, resp, p_now);
  RETURN resp;
END
$$;

-- Group commit. Under load the service sends the Authorize, Settle and Charge
-- calls that arrive together as one batch: one round trip, one transaction, one
-- WAL flush for all of them (src/store/batcher.ts;
-- docs/decisions/0004-ledger-concurrency.md). Each call runs exactly as alone,
-- in arrival order, and sees the calls before it; no answer leaves the service
-- before the batch commits.
--
-- Every account a batch touches is locked first, sorted by workspace id: two
-- batches then never hold one account each while waiting for the other's.
-- Calls outside batches lock at most one account, so no cycle can form there.
CREATE OR REPLACE FUNCTION "ledger_batch"(p_calls jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  c jsonb;
  a jsonb;
  r jsonb;
  results jsonb := '[]'::jsonb;
BEGIN
  PERFORM 1 FROM "accounts"
   WHERE "workspace_id" IN (
     SELECT x->'args'->>0 FROM jsonb_array_elements(p_calls) x WHERE x->>'fn' <> 'ledger_settle'
     UNION
     SELECT h."workspace_id" FROM "holds" h
       JOIN jsonb_array_elements(p_calls) x ON x->>'fn' = 'ledger_settle' AND h."id" = (x->'args'->>0)::uuid
   )
   ORDER BY "workspace_id"
   FOR UPDATE;
  FOR c IN SELECT * FROM jsonb_array_elements(p_calls) LOOP
    a := c->'args';
    CASE c->>'fn'
      WHEN 'ledger_authorize' THEN
        r := "ledger_authorize"(a->>0, a->>1, a->>2, a->>3, a->>4, (a->>5)::bigint, (a->>6)::int,
                                (a->>7)::timestamptz, (a->>8)::timestamptz, (a->>9)::uuid);
      WHEN 'ledger_settle' THEN
        r := "ledger_settle"((a->>0)::uuid, a->>1, a->>2, (a->>3)::jsonb, (a->>4)::bigint,
                             (a->>5)::timestamptz, (a->>6)::timestamptz, (a->>7)::timestamptz, (a->>8)::uuid,
                             a->>9);
      WHEN 'ledger_charge' THEN
        r := "ledger_charge"(a->>0, a->>1, a->>2, a->>3, a->>4, (a->>5)::jsonb, (a->>6)::bigint,
                             (a->>7)::timestamptz, (a->>8)::timestamptz, (a->>9)::timestamptz, (a->>10)::uuid);
    END CASE;
    results := results || jsonb_build_array(r);
  END LOOP;
  RETURN results;
END
$$;
