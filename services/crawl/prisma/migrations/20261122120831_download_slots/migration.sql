-- The crawl row and a host's row are every page's meeting points, and a
-- host's concurrency is what a site feels (docs/decisions/0006-crawl-frontier.md):
--
-- 1. A host's concurrency counts requests out to it, not pages being stored:
--    a URL holds its host place from its take until its download is done
--    (`download_until`, cleared by crawl_downloaded; a worker that dies frees
--    it when the lease would end), no longer until its delivery.
-- 2. crawl_downloaded commits without waiting for its WAL flush: if Postgres
--    crashes before the flush, the place it freed is taken again until the
--    lease ends, which only makes the crawl politer for a while. crawl_take
--    stays synchronous: its claim and lease are what let a page that was
--    settled but not yet delivered be taken over and delivered after a crash.
-- 3. crawl_deliver indexes the page for search before it locks the crawl row,
--    not while holding it (to_tsvector of a page is the costliest step).
-- 4. Stored pages and index text are compressed with lz4 rather than the
--    default pglz: several times faster at a similar size, and every page is
--    written once and read rarely.

-- AlterTable
ALTER TABLE "crawl_urls" ADD COLUMN     "download_until" TIMESTAMPTZ(3);

ALTER TABLE "crawl_pages" ALTER COLUMN "document" SET COMPRESSION lz4;
ALTER TABLE "search_documents" ALTER COLUMN "content" SET COMPRESSION lz4;
ALTER TABLE "cached_pages" ALTER COLUMN "html" SET COMPRESSION lz4;

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
  PERFORM set_config('synchronous_commit', 'off', true);
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
  UPDATE crawl_hosts SET next_at = now() + gap_ms * interval '1 millisecond'
   WHERE crawl_id = p_crawl AND host = u.host;
  RETURN QUERY SELECT 'fetch'::text, 0, u.depth;
END $$;

-- A URL's request to its host is done: its host place is free for the next.
CREATE FUNCTION crawl_downloaded(p_crawl UUID, p_key TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE crawl_urls SET download_until = NULL WHERE crawl_id = p_crawl AND url_key = p_key AND state = 'fetching';
END $$;

-- PL/pgSQL keeps its plan; a SQL-language function is planned again on every call.
CREATE OR REPLACE FUNCTION search_index_put(p_workspace UUID, p_url TEXT, p_title TEXT, p_description TEXT,
                                            p_content TEXT, p_language TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO search_documents (workspace_id, url, title, description, content, language, updated_at)
  VALUES (p_workspace, p_url, p_title, p_description, p_content, p_language, now())
  ON CONFLICT (workspace_id, url) DO UPDATE SET title = excluded.title, description = excluded.description,
    content = excluded.content, language = excluded.language, updated_at = now();
END $$;

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
