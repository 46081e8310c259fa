-- Entries and usage are history: corrections are new rows. A first answer is
-- never rewritten, though old ones may be purged (DELETE stays allowed there).
CREATE OR REPLACE FUNCTION "ledger_refuse_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows are immutable; record a correcting entry instead', TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END
$$;
