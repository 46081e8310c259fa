-- Gateways cache API keys in memory (docs/decisions/0007). Every change to a
-- key or a workspace announces itself on the identity_changed channel when
-- its transaction commits, so each gateway drops what it cached before the
-- next request reads it; a gateway answers on identity_ack once it has.
CREATE FUNCTION identity_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'api_keys' THEN
    PERFORM pg_notify('identity_changed', 'key:' || OLD.key_id);
  ELSE
    PERFORM pg_notify('identity_changed', 'workspace:' || OLD.id::text);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION identity_changed();
CREATE TRIGGER workspaces_changed AFTER UPDATE OR DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION identity_changed();
