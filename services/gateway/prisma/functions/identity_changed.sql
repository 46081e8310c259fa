CREATE OR REPLACE FUNCTION identity_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- Set by a writer that waits for the acknowledgements (SET LOCAL wap.change_id):
  -- it tells its own from those of a concurrent change to the same row.
  change_id TEXT := nullif(current_setting('wap.change_id', true), '');
  payload TEXT;
BEGIN
  IF TG_TABLE_NAME = 'api_keys' THEN
    payload := 'key:' || OLD.key_id;
  ELSE
    payload := 'workspace:' || OLD.id::text;
  END IF;
  PERFORM pg_notify('identity_changed', payload || coalesce('|' || change_id, ''));
  RETURN NULL;
END $$;
