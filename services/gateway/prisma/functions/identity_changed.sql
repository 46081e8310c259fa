-- Gateways cache API keys in memory (docs/decisions/0007-api-key-cache.md). Every change to a
-- key or a workspace announces itself on the identity_changed channel when
-- its transaction commits, so each gateway drops what it cached before the
-- next request reads it; a gateway answers on identity_ack once it has.
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
