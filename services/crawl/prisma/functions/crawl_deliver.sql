-- Delivers a fetched page: the URL is done (only if still fetching: else no
-- row, another worker delivered it), its new links are queued (known ones
-- filtered first, new ones in key order: no deadlock between pages linking to
-- each other), the page takes the next seq under the crawl row's lock, and it
-- goes into the workspace's search index. Answers what is still open, so the
-- worker knows whether the crawl may have ended without asking again. Locks are
-- taken URL row first, then host row, then crawl row, as crawl_take takes them.
CREATE OR REPLACE FUNCTION crawl_deliver(p_crawl UUID, p_key TEXT, p_depth INTEGER, p_document BYTEA,
                                         p_keys TEXT[], p_urls TEXT[], p_hosts TEXT[], p_depths INTEGER[],
                                         p_index_url TEXT, p_title TEXT, p_description TEXT, p_content TEXT,
                                         p_language TEXT, p_final_key TEXT, p_final_url TEXT, p_final_host TEXT)
RETURNS TABLE (seq INTEGER, queued TEXT[], open INTEGER, at_limit BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  fresh TEXT[];
  c RECORD;
  workspace UUID;
BEGIN
  UPDATE crawl_urls SET state = 'done', lease_until = NULL, download_until = NULL
   WHERE crawl_id = p_crawl AND url_key = p_key AND state = 'fetching';
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- A page reached through a redirect also answers for where it landed: that
  -- URL is known (done) from now on, so a link to it is not fetched again. It
  -- is not a page of its own, so no counter counts it.
  IF p_final_key IS NOT NULL AND p_final_key <> p_key THEN
    INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, state, parent_key)
    VALUES (p_crawl, p_final_key, p_final_url, p_final_host, p_depth, 'done', p_key)
    ON CONFLICT DO NOTHING;
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
  -- Indexed before the crawl row is locked (the workspace never changes, so no lock is needed to read it).
  SELECT cr.workspace_id INTO workspace FROM crawls cr WHERE cr.id = p_crawl;
  PERFORM search_index_put(workspace, p_index_url, p_title, p_description, p_content, p_language);
  -- From here the crawl row is locked until commit: only the counters and the page's seq.
  UPDATE crawls SET completed = completed + 1, discovered = discovered + cardinality(fresh), progress_at = now()
   WHERE id = p_crawl
  RETURNING completed, "limit", discovered - completed - failed - skipped AS still_open INTO c;
  INSERT INTO crawl_pages (crawl_id, seq, url_key, depth, document) VALUES (p_crawl, c.completed, p_key, p_depth, p_document);
  RETURN QUERY SELECT c.completed, fresh, c.still_open, c.completed >= c."limit";
END $$;
