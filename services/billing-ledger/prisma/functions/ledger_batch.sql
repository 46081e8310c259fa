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
