-- Rate limits taken in small batches (docs/decisions/0005-rate-limit-store.md):
-- each gateway replica takes up to p_want requests of a workspace's budget in one
-- call and spends them locally, so a busy workspace costs one round trip per
-- batch rather than per request. Same sliding-window counter as rate_limit_take.
CREATE OR REPLACE FUNCTION rate_limit_take_batch(p_workspace UUID, p_limit INTEGER, p_window_ms INTEGER, p_want INTEGER)
RETURNS TABLE (granted INTEGER, remaining INTEGER, reset_ms INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  now_ms BIGINT := floor(extract(epoch FROM clock_timestamp()) * 1000);
  win BIGINT := now_ms / p_window_ms;
  elapsed BIGINT := now_ms - win * p_window_ms;
  cur INTEGER;
  prev INTEGER;
  used INTEGER;
BEGIN
  -- The current window's row, locked; created on the window's first request.
  SELECT count INTO cur FROM rate_windows WHERE workspace_id = p_workspace AND "window" = win FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO rate_windows (workspace_id, "window", count) VALUES (p_workspace, win, 0)
      ON CONFLICT (workspace_id, "window") DO NOTHING;
    SELECT count INTO cur FROM rate_windows WHERE workspace_id = p_workspace AND "window" = win FOR UPDATE;
    -- Windows older than the previous one no longer count: drop them once per window.
    DELETE FROM rate_windows WHERE workspace_id = p_workspace AND "window" < win - 1;
  END IF;
  SELECT count INTO prev FROM rate_windows WHERE workspace_id = p_workspace AND "window" = win - 1;
  used := floor(coalesce(prev, 0) * (p_window_ms - elapsed)::DOUBLE PRECISION / p_window_ms)::INTEGER + cur;
  granted := least(greatest(p_want, 1), greatest(p_limit - used, 0));
  IF granted > 0 THEN
    UPDATE rate_windows SET count = cur + granted WHERE workspace_id = p_workspace AND "window" = win;
  END IF;
  remaining := greatest(p_limit - used - granted, 0);
  -- When a refused request may succeed: once enough of the previous window has
  -- slid out for one more, or at the latest when this window ends.
  IF granted = 0 AND coalesce(prev, 0) > 0 AND cur < p_limit THEN
    reset_ms := least(
      p_window_ms - elapsed,
      ceil((used + 1 - p_limit) * p_window_ms::DOUBLE PRECISION / prev)::INTEGER);
    reset_ms := greatest(reset_ms, 1);
  ELSE
    reset_ms := p_window_ms - elapsed;
  END IF;
  RETURN NEXT;
END;
$$;
