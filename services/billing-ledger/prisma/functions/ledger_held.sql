-- What unexpired active holds reserve; an expired hold counts as released
-- whether or not the sweep has marked it yet.
CREATE OR REPLACE FUNCTION "ledger_held"(p_ws text, p_now timestamptz) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum("amount_mc" - "settled_mc"), 0)::bigint FROM "holds"
           WHERE "workspace_id" = p_ws AND "status" = 'active' AND "expires_at" > p_now);
END
$$;
