-- Whether this worker fetches the URL now, in one round trip (docs/crawl.md).
-- kind: gone | done | failed | skipped (already handled) | wait (wait_ms) |
-- stopped | needs_host | robots | limit | fetch. Locks are taken URL row first,
-- then host row, then crawl row, as crawl_deliver takes them. A closed crawl
-- takes nothing more, whatever its status says until it is settled: its count
-- of delivered pages is final (what it bills).
CREATE OR REPLACE FUNCTION crawl_take(p_crawl UUID, p_key TEXT, p_allowed BOOLEAN, p_max_per_host INTEGER, p_lease_ms INTEGER)
RETURNS TABLE (kind TEXT, wait_ms INTEGER, depth INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  u RECORD;
  c RECORD;
  host_wait INTEGER;
  busy INTEGER;
  takeover BOOLEAN;
BEGIN
  SELECT cu.host, cu.depth, cu.state, cu.lease_until INTO u
    FROM crawl_urls cu WHERE cu.crawl_id = p_crawl AND cu.url_key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'gone'::text, 0, 0; RETURN;
  END IF;
  IF u.state IN ('done', 'failed', 'skipped') THEN
    RETURN QUERY SELECT u.state::text, 0, u.depth; RETURN;
  END IF;
  IF u.state = 'fetching' AND u.lease_until > now() THEN
    RETURN QUERY SELECT 'wait'::text, least(ceil(extract(epoch FROM u.lease_until - now()) * 1000)::int, 30000), u.depth;
    RETURN;
  END IF;
  -- A fetching URL whose lease ran out was taken by a worker that died: its claim still counts.
  takeover := u.state = 'fetching';
  SELECT cr.status, cr.completed, cr."limit", cr.closed_at INTO c FROM crawls cr WHERE cr.id = p_crawl;
  IF c.status <> 'running' OR c.closed_at IS NOT NULL THEN
    PERFORM crawl_skip(p_crawl, p_key, takeover);
    RETURN QUERY SELECT 'stopped'::text, 0, u.depth; RETURN;
  END IF;
  -- The clock, not now(): now() is when the transaction began, and a take that began
  -- before another committed would see that one's next_at ahead of it and wait for
  -- nothing. Rounded down: next_at is kept to the millisecond, rounded to nearest,
  -- so a gap of 0 could otherwise read as "wait 1 ms".
  SELECT greatest(0, floor(extract(epoch FROM h.next_at - clock_timestamp()) * 1000))::int INTO host_wait
    FROM crawl_hosts h WHERE h.crawl_id = p_crawl AND h.host = u.host FOR UPDATE;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'needs_host'::text, 0, u.depth; RETURN;
  END IF;
  IF NOT p_allowed THEN
    PERFORM crawl_skip(p_crawl, p_key, takeover);
    RETURN QUERY SELECT 'robots'::text, 0, u.depth; RETURN;
  END IF;
  IF host_wait > 0 THEN
    RETURN QUERY SELECT 'wait'::text, host_wait, u.depth; RETURN;
  END IF;
  SELECT count(*)::int INTO busy FROM crawl_urls cu
   WHERE cu.crawl_id = p_crawl AND cu.host = u.host AND cu.state = 'fetching' AND cu.download_until > now();
  IF busy >= p_max_per_host THEN
    RETURN QUERY SELECT 'wait'::text, 100, u.depth; RETURN;
  END IF;
  IF NOT takeover THEN
    UPDATE crawls SET claimed = claimed + 1 WHERE id = p_crawl AND claimed < "limit";
    IF NOT FOUND THEN
      -- Pages in flight may still fail and give their claim back: wait for them.
      IF c.completed < c."limit" THEN
        RETURN QUERY SELECT 'wait'::text, 250, u.depth; RETURN;
      END IF;
      PERFORM crawl_skip(p_crawl, p_key, false);
      RETURN QUERY SELECT 'limit'::text, 0, u.depth; RETURN;
    END IF;
  END IF;
  UPDATE crawl_urls SET state = 'fetching', lease_until = now() + p_lease_ms * interval '1 millisecond',
                        download_until = now() + p_lease_ms * interval '1 millisecond'
   WHERE crawl_id = p_crawl AND url_key = p_key;
  UPDATE crawl_hosts SET next_at = clock_timestamp() + gap_ms * interval '1 millisecond'
   WHERE crawl_id = p_crawl AND host = u.host;
  RETURN QUERY SELECT 'fetch'::text, 0, u.depth;
END $$;
