-- Spends p_amount from the sources in spending order (docs/billing.md; the
-- same order as src/domain/spending.ts): earliest lapse first, the allowance
-- before a grant lapsing at the same instant, never-lapsing grants last, oldest
-- first. One entry per source drawn. Returns what it could draw.
CREATE OR REPLACE FUNCTION "ledger_draw"(
  acc "accounts", p_amount bigint, p_now timestamptz, p_period_end timestamptz, p_usage_id uuid, p_hold_id uuid
) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  src record;
  left_mc bigint := p_amount;
  take bigint;
BEGIN
  IF left_mc <= 0 THEN RETURN 0; END IF;
  FOR src IN
    SELECT NULL::uuid AS "grant_id", p_period_end AS "lapses_at", 0 AS "rank", acc."created_at" AS "created_at",
           acc."allowance_mc" - acc."allowance_spent_mc" AS "remaining"
    UNION ALL
    SELECT "id", "lapses_at", 1, "created_at", "amount_mc" - "spent_mc" FROM "grants"
     WHERE "workspace_id" = acc."workspace_id" AND "spent_mc" < "amount_mc"
       AND ("lapses_at" IS NULL OR "lapses_at" > p_now)
    ORDER BY "lapses_at" NULLS LAST, "rank", "created_at", "grant_id"
  LOOP
    CONTINUE WHEN src."remaining" <= 0;
    take := least(left_mc, src."remaining");
    IF src."grant_id" IS NULL THEN
      UPDATE "accounts" SET "allowance_spent_mc" = "allowance_spent_mc" + take, "updated_at" = p_now
       WHERE "workspace_id" = acc."workspace_id";
      INSERT INTO "entries" ("workspace_id", "kind", "amount_mc", "usage_id", "hold_id", "allowance_period_start", "created_at")
      VALUES (acc."workspace_id", 'spend', take, p_usage_id, p_hold_id, acc."allowance_period_start", p_now);
    ELSE
      UPDATE "grants" SET "spent_mc" = "spent_mc" + take WHERE "id" = src."grant_id";
      INSERT INTO "entries" ("workspace_id", "kind", "amount_mc", "usage_id", "hold_id", "grant_id", "created_at")
      VALUES (acc."workspace_id", 'spend', take, p_usage_id, p_hold_id, src."grant_id", p_now);
    END IF;
    left_mc := left_mc - take;
    EXIT WHEN left_mc = 0;
  END LOOP;
  RETURN p_amount - left_mc;
END
$$;
