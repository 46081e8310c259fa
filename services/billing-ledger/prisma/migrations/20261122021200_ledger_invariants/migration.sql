-- Written by hand: the invariants of docs/billing.md that Prisma's schema
-- language cannot state. The database refuses a broken balance even if a bug
-- in the service (or a person with psql) tries to write one. (Closed sets of
-- names are enum types in the model migration.)

-- Balances never below zero: no source is spent beyond what it holds.
ALTER TABLE "accounts"
  ADD CONSTRAINT "accounts_limits_check" CHECK ("monthly_allowance_mc" >= 0 AND "slot_limit" >= 0),
  ADD CONSTRAINT "accounts_allowance_check" CHECK ("allowance_spent_mc" >= 0 AND "allowance_spent_mc" <= "allowance_mc");

ALTER TABLE "grants"
  ADD CONSTRAINT "grants_amount_check" CHECK ("amount_mc" > 0),
  ADD CONSTRAINT "grants_spent_check" CHECK ("spent_mc" >= 0 AND "spent_mc" <= "amount_mc");

-- A hold settles at most its amount and resolves once: active until exactly one
-- of settled (all of it used), voided (the rest released) or expired.
ALTER TABLE "holds"
  ADD CONSTRAINT "holds_amount_check" CHECK ("amount_mc" > 0),
  ADD CONSTRAINT "holds_settled_check" CHECK ("settled_mc" >= 0 AND "settled_mc" <= "amount_mc"),
  ADD CONSTRAINT "holds_resolution_check" CHECK (("status" = 'active') = ("resolved_at" IS NULL)),
  ADD CONSTRAINT "holds_full_check" CHECK ("status" <> 'settled' OR "settled_mc" = "amount_mc"),
  ADD CONSTRAINT "holds_released_check" CHECK (
    ("released_mc" IS NULL) = ("status" <> 'voided')
    AND ("released_mc" IS NULL OR "released_mc" = "amount_mc" - "settled_mc")
  );

-- Available balance and the expiry sweep read only live holds.
CREATE INDEX "holds_active_workspace_idx" ON "holds" ("workspace_id", "expires_at")
  INCLUDE ("amount_mc", "settled_mc") WHERE "status" = 'active';
CREATE INDEX "holds_active_expiry_idx" ON "holds" ("expires_at") WHERE "status" = 'active';
-- Grants that still have something left, the only ones spending looks at.
CREATE INDEX "grants_open_idx" ON "grants" ("workspace_id", "lapses_at") WHERE "spent_mc" < "amount_mc";

-- Every entry names exactly one source; a spend names the call that spent it.
ALTER TABLE "entries"
  ADD CONSTRAINT "entries_amount_check" CHECK ("amount_mc" > 0),
  ADD CONSTRAINT "entries_source_check" CHECK (("grant_id" IS NULL) <> ("allowance_period_start" IS NULL)),
  ADD CONSTRAINT "entries_link_check" CHECK (
    ("kind" = 'grant' AND "grant_id" IS NOT NULL AND "usage_id" IS NULL AND "hold_id" IS NULL)
    OR ("kind" = 'spend' AND "usage_id" IS NOT NULL)
  );

ALTER TABLE "usage_records"
  ADD CONSTRAINT "usage_records_amounts_check" CHECK (
    "charged_mc" >= 0 AND "uncollected_mc" >= 0 AND "priced_mc" = "charged_mc" + "uncollected_mc"
  );

ALTER TABLE "usage_meters"
  ADD CONSTRAINT "usage_meters_amounts_check" CHECK ("quantity" >= 0 AND "mc" >= 0);

-- Entries and usage are history: corrections are new rows. A first answer is
-- never rewritten, though old ones may be purged (DELETE stays allowed there).
CREATE FUNCTION "ledger_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are immutable; record a correcting entry instead', TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END
$$;

CREATE TRIGGER "entries_immutable" BEFORE UPDATE OR DELETE ON "entries"
  FOR EACH ROW EXECUTE FUNCTION "ledger_refuse_change"();
CREATE TRIGGER "entries_not_truncated" BEFORE TRUNCATE ON "entries"
  FOR EACH STATEMENT EXECUTE FUNCTION "ledger_refuse_change"();
CREATE TRIGGER "usage_records_immutable" BEFORE UPDATE OR DELETE ON "usage_records"
  FOR EACH ROW EXECUTE FUNCTION "ledger_refuse_change"();
CREATE TRIGGER "usage_records_not_truncated" BEFORE TRUNCATE ON "usage_records"
  FOR EACH STATEMENT EXECUTE FUNCTION "ledger_refuse_change"();
CREATE TRIGGER "usage_meters_immutable" BEFORE UPDATE OR DELETE ON "usage_meters"
  FOR EACH ROW EXECUTE FUNCTION "ledger_refuse_change"();
CREATE TRIGGER "idempotency_records_immutable" BEFORE UPDATE ON "idempotency_records"
  FOR EACH ROW EXECUTE FUNCTION "ledger_refuse_change"();
