-- Written by hand: the money movements, one function per RPC. Each runs as a
-- single statement of its caller, so an RPC is one round trip and one
-- transaction, and the workspace's account row lock (taken first, always) is
-- held only while Postgres itself works; see docs/decisions/0004-ledger-concurrency.md.
-- Amounts and prices arrive computed by the service (src/domain/pricing.ts);
-- the clock is the service's (p_now), so tests can move it.
-- Functions answer a jsonb object; {"error": ...} refuses without writing.

-- The workspace's account, locked, its allowance moved into the current period
-- (the lapsed remainder of the last one simply stops counting).
CREATE FUNCTION "ledger_lock_account"(p_ws text, p_period_start timestamptz) RETURNS "accounts"
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

-- What the live grants still hold (lapsed remainders do not count).
-- PL/pgSQL rather than SQL functions here and below: PL/pgSQL keeps its plans
-- per connection, while Postgres 15 parses and plans a SQL function per call.
CREATE FUNCTION "ledger_grants_left"(p_ws text, p_now timestamptz) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum("amount_mc" - "spent_mc"), 0)::bigint FROM "grants"
           WHERE "workspace_id" = p_ws AND "spent_mc" < "amount_mc" AND ("lapses_at" IS NULL OR "lapses_at" > p_now));
END
$$;

-- What unexpired active holds reserve; an expired hold counts as released
-- whether or not the sweep has marked it yet.
CREATE FUNCTION "ledger_held"(p_ws text, p_now timestamptz) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum("amount_mc" - "settled_mc"), 0)::bigint FROM "holds"
           WHERE "workspace_id" = p_ws AND "status" = 'active' AND "expires_at" > p_now);
END
$$;

-- The stored answer to a key (a retry), an idempotency_conflict error when the
-- key came with another request, or NULL for a new key.
CREATE FUNCTION "ledger_replay"(p_ws text, p_key text, p_hash text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  prior "idempotency_records";
BEGIN
  SELECT * INTO prior FROM "idempotency_records" WHERE "workspace_id" = p_ws AND "key" = p_key;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF prior."request_hash" <> p_hash THEN
    RETURN jsonb_build_object('error', 'idempotency_conflict', 'operation', prior."operation");
  END IF;
  RETURN prior."response";
END
$$;

-- Spends p_amount from the sources in spending order (docs/billing.md; the
-- same order as src/domain/spending.ts): earliest lapse first, the allowance
-- before a grant lapsing at the same instant, never-lapsing grants last, oldest
-- first. One entry per source drawn. Returns what it could draw.
CREATE FUNCTION "ledger_draw"(
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

-- Records one Settle or Charge call: usage row, its meters, the spend entries.
-- p_collect must be drawable (the callers bound it by what the sources hold).
CREATE FUNCTION "ledger_record_usage"(
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
