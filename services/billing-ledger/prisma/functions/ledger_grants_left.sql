-- What the live grants still hold (lapsed remainders do not count).
-- PL/pgSQL rather than SQL functions here and in the others: PL/pgSQL keeps its
-- plans per connection, while Postgres 15 parses and plans a SQL function per call.
CREATE OR REPLACE FUNCTION "ledger_grants_left"(p_ws text, p_now timestamptz) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum("amount_mc" - "spent_mc"), 0)::bigint FROM "grants"
           WHERE "workspace_id" = p_ws AND "spent_mc" < "amount_mc" AND ("lapses_at" IS NULL OR "lapses_at" > p_now));
END
$$;
