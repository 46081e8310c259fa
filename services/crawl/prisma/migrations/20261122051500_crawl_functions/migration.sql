-- The crawl worker's two hot steps, each one round trip (docs/crawl.md). Locks
-- are taken URL row first, then host row, then crawl row, in both.

-- A URL that will not be fetched: skipped, its claim given back if it held one.
CREATE FUNCTION crawl_skip(p_crawl UUID, p_key TEXT, p_held_claim BOOLEAN) RETURNS VOID
LANGUAGE sql AS $$
  UPDATE crawl_urls SET state = 'skipped', lease_until = NULL WHERE crawl_id = p_crawl AND url_key = p_key;
  UPDATE crawls SET skipped = skipped + 1, claimed = claimed - (CASE WHEN p_held_claim THEN 1 ELSE 0 END)
   WHERE id = p_crawl;
$$;

-- Whether this worker fetches the URL now. kind: gone | done | failed | skipped
-- (already handled) | wait (wait_ms) | stopped | needs_host | robots | limit | fetch.
CREATE FUNCTION crawl_take(p_crawl UUID, p_key TEXT, p_allowed BOOLEAN, p_max_per_host INTEGER, p_lease_ms INTEGER)
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
  SELECT cr.status, cr.completed, cr."limit" INTO c FROM crawls cr WHERE cr.id = p_crawl;
  IF c.status <> 'running' THEN
    PERFORM crawl_skip(p_crawl, p_key, takeover);
    RETURN QUERY SELECT 'stopped'::text, 0, u.depth; RETURN;
  END IF;
  SELECT greatest(0, ceil(extract(epoch FROM h.next_at - now()) * 1000))::int INTO host_wait
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
   WHERE cu.crawl_id = p_crawl AND cu.host = u.host AND cu.state = 'fetching' AND cu.lease_until > now();
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
  UPDATE crawl_urls SET state = 'fetching', lease_until = now() + p_lease_ms * interval '1 millisecond'
   WHERE crawl_id = p_crawl AND url_key = p_key;
  UPDATE crawl_hosts SET next_at = now() + gap_ms * interval '1 millisecond'
   WHERE crawl_id = p_crawl AND host = u.host;
  RETURN QUERY SELECT 'fetch'::text, 0, u.depth;
END $$;

-- The built-in search index's one write: the last copy of a page a workspace fetched.
CREATE FUNCTION search_index_put(p_workspace UUID, p_url TEXT, p_title TEXT, p_description TEXT, p_content TEXT,
                                 p_language TEXT) RETURNS VOID
LANGUAGE sql AS $$
  INSERT INTO search_documents (workspace_id, url, title, description, content, language, updated_at)
  VALUES (p_workspace, p_url, p_title, p_description, p_content, p_language, now())
  ON CONFLICT (workspace_id, url) DO UPDATE SET title = excluded.title, description = excluded.description,
    content = excluded.content, language = excluded.language, updated_at = now();
$$;

-- Delivers a fetched page: the URL is done (only if still fetching: else no
-- row, another worker delivered it), its new links are queued (known ones
-- filtered first, new ones in key order: no deadlock between pages linking to
-- each other), the page takes the next seq under the crawl row's lock, and it
-- goes into the workspace's search index. Answers what is still open, so the
-- worker knows whether the crawl may have ended without asking again.
CREATE FUNCTION crawl_deliver(p_crawl UUID, p_key TEXT, p_depth INTEGER, p_document BYTEA,
                              p_keys TEXT[], p_urls TEXT[], p_hosts TEXT[], p_depths INTEGER[],
                              p_index_url TEXT, p_title TEXT, p_description TEXT, p_content TEXT, p_language TEXT)
RETURNS TABLE (seq INTEGER, queued TEXT[], open INTEGER, at_limit BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  fresh TEXT[];
  c RECORD;
BEGIN
  UPDATE crawl_urls SET state = 'done', lease_until = NULL
   WHERE crawl_id = p_crawl AND url_key = p_key AND state = 'fetching';
  IF NOT FOUND THEN
    RETURN;
  END IF;
  WITH inserted AS (
    INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, parent_key)
    SELECT p_crawl, t.k, t.u, t.h, t.d, p_key
      FROM unnest(p_keys, p_urls, p_hosts, p_depths) AS t(k, u, h, d)
     WHERE NOT EXISTS (SELECT 1 FROM crawl_urls x WHERE x.crawl_id = p_crawl AND x.url_key = t.k)
     ORDER BY t.k
    ON CONFLICT DO NOTHING
    RETURNING url_key
  )
  SELECT coalesce(array_agg(url_key), '{}') INTO fresh FROM inserted;
  UPDATE crawls SET completed = completed + 1, discovered = discovered + cardinality(fresh), progress_at = now()
   WHERE id = p_crawl
  RETURNING workspace_id, completed, "limit", discovered - completed - failed - skipped AS still_open INTO c;
  INSERT INTO crawl_pages (crawl_id, seq, url_key, depth, document) VALUES (p_crawl, c.completed, p_key, p_depth, p_document);
  PERFORM search_index_put(c.workspace_id, p_index_url, p_title, p_description, p_content, p_language);
  RETURN QUERY SELECT c.completed, fresh, c.still_open, c.completed >= c."limit";
END $$;
