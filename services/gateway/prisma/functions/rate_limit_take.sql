-- Sliding-window-counter rate limiting in one round trip, shared by every
-- gateway replica (docs/decisions/0005-rate-limit-store.md). The current
-- window's row is locked, the previous window's count is weighted by how much
-- of it still overlaps the sliding minute, and the request is counted only if
-- it is allowed, so a client hammering a closed limit does not keep it closed.
CREATE OR REPLACE FUNCTION rate_limit_take(p_workspace UUID, p_limit INTEGER, p_window_ms INTEGER)
RETURNS TABLE (allowed BOOLEAN, remaining INTEGER, reset_ms INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  now_ms BIGINT := floor(extract(epoch FROM clock_timestamp()) * 1000);
  win BIGINT := now_ms / p_window_ms;
  elapsed BIGINT := now_ms - win * p_window_ms;
  cur INTEGER;
  prev INTEGER;
  weighted DOUBLE PRECISION;
BEGIN
  INSERT INTO rate_windows (workspace_id, "window", count) VALUES (p_workspace, win, 0)
    ON CONFLICT (workspace_id, "window") DO NOTHING;
  SELECT count INTO cur FROM rate_windows WHERE workspace_id = p_workspace AND "window" = win FOR UPDATE;
  SELECT count INTO prev FROM rate_windows WHERE workspace_id = p_workspace AND "window" = win - 1;
  weighted := coalesce(prev, 0) * (p_window_ms - elapsed)::DOUBLE PRECISION / p_window_ms;
  IF floor(weighted) + cur < p_limit THEN
    UPDATE rate_windows SET count = cur + 1 WHERE workspace_id = p_workspace AND "window" = win;
    allowed := TRUE;
    remaining := greatest(p_limit - (floor(weighted)::INTEGER + cur + 1), 0);
  ELSE
    allowed := FALSE;
    remaining := 0;
  END IF;
  -- When a denied request may succeed: once enough of the previous window has
  -- slid out, or at the latest when this window ends.
  IF NOT allowed AND coalesce(prev, 0) > 0 AND cur < p_limit THEN
    reset_ms := least(
      p_window_ms - elapsed,
      ceil((floor(weighted) + cur + 1 - p_limit) * p_window_ms::DOUBLE PRECISION / prev)::INTEGER);
    reset_ms := greatest(reset_ms, 1);
  ELSE
    reset_ms := p_window_ms - elapsed;
  END IF;
  -- Windows older than the previous one no longer count; drop them now and then.
  IF random() < 0.01 THEN
    DELETE FROM rate_windows WHERE workspace_id = p_workspace AND "window" < win - 1;
  END IF;
  RETURN NEXT;
END;
$$;
