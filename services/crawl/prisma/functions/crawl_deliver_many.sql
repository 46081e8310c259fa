-- Deliveries of a batch: page i is (p_crawls[i], p_keys[i], ...), its document
-- the bytes of p_documents from p_document_ends[i - 1] to p_document_ends[i]
-- (one bytea travels in binary; an array of them would travel in hex), and
-- link j belongs to page p_link_pages[j]. Row i of the answer has the page's seq (NULL when its
-- URL was no longer being fetched: another worker delivered it), the keys of the
-- links it queued, and its crawl's open count and limit after the batch.
-- Within a crawl, the batch's pages take consecutive seqs in the order given.
CREATE OR REPLACE FUNCTION crawl_deliver_many(p_crawls UUID[], p_keys TEXT[], p_depths INTEGER[], p_documents BYTEA,
                                   p_document_ends INTEGER[], p_index_urls TEXT[], p_titles TEXT[],
                                   p_descriptions TEXT[], p_contents TEXT[],
                                   p_languages TEXT[], p_final_keys TEXT[], p_final_urls TEXT[], p_final_hosts TEXT[],
                                   p_link_pages INTEGER[], p_link_keys TEXT[], p_link_urls TEXT[], p_link_hosts TEXT[],
                                   p_link_depths INTEGER[])
RETURNS TABLE (i INTEGER, seq INTEGER, queued TEXT[], open INTEGER, at_limit BOOLEAN)
LANGUAGE plpgsql AS $$
DECLARE
  mine INTEGER[];
  fresh_crawls UUID[];
  fresh_keys TEXT[];
  fresh_parents TEXT[];
  c RECORD;
  r RECORD;
BEGIN
  -- 1. The pages whose URL this batch still fetches become done (a URL listed twice counts once).
  WITH pages AS (
    SELECT DISTINCT ON (t.c, t.k) t.c, t.k, t.o::int AS o
      FROM unnest(p_crawls, p_keys) WITH ORDINALITY AS t(c, k, o) ORDER BY t.c, t.k, t.o
  ), locked AS (
    SELECT cu.crawl_id, cu.url_key FROM crawl_urls cu JOIN pages p ON cu.crawl_id = p.c AND cu.url_key = p.k
     WHERE cu.state = 'fetching' ORDER BY cu.crawl_id, cu.url_key FOR UPDATE OF cu
  ), done AS (
    UPDATE crawl_urls cu SET state = 'done', lease_until = NULL, download_until = NULL
      FROM locked l WHERE cu.crawl_id = l.crawl_id AND cu.url_key = l.url_key
    RETURNING cu.crawl_id, cu.url_key
  )
  SELECT coalesce(array_agg(p.o ORDER BY p.o), '{}') INTO mine FROM pages p JOIN done d ON d.crawl_id = p.c AND d.url_key = p.k;

  -- 2. New URL rows, in key order: where a redirect landed (known, done, counted nowhere) and the links found.
  WITH cand AS (
    SELECT DISTINCT ON (x.c, x.k) x.c, x.k, x.u, x.h, x.d, x.state, x.parent
      FROM (SELECT p_crawls[m] AS c, p_final_keys[m] AS k, p_final_urls[m] AS u, p_final_hosts[m] AS h,
                   p_depths[m] AS d, 'done'::text AS state, p_keys[m] AS parent, 0 AS rank, m AS o
              FROM unnest(mine) AS m WHERE p_final_keys[m] IS NOT NULL AND p_final_keys[m] <> p_keys[m]
            UNION ALL
            SELECT p_crawls[l.pg], l.k, l.u, l.h, l.d, 'pending', p_keys[l.pg], 1, l.pg
              FROM unnest(p_link_pages, p_link_keys, p_link_urls, p_link_hosts, p_link_depths) AS l(pg, k, u, h, d)
             WHERE l.pg = ANY(mine)) x
     ORDER BY x.c, x.k, x.rank, x.o
  ), inserted AS (
    INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, state, parent_key)
    SELECT cand.c, cand.k, cand.u, cand.h, cand.d, cand.state, cand.parent FROM cand
     WHERE NOT EXISTS (SELECT 1 FROM crawl_urls x WHERE x.crawl_id = cand.c AND x.url_key = cand.k)
     ORDER BY cand.c, cand.k
    ON CONFLICT DO NOTHING
    RETURNING crawl_id, url_key, parent_key, state
  )
  SELECT coalesce(array_agg(crawl_id), '{}'), coalesce(array_agg(url_key), '{}'), coalesce(array_agg(parent_key), '{}')
    INTO fresh_crawls, fresh_keys, fresh_parents
    FROM inserted WHERE state = 'pending';

  -- 3. The search index, before any crawl row is locked (a workspace's last copy of a URL wins).
  INSERT INTO search_documents (workspace_id, url, title, description, content, language, updated_at)
  SELECT DISTINCT ON (cr.workspace_id, p_index_urls[m]) cr.workspace_id, p_index_urls[m], p_titles[m],
         p_descriptions[m], p_contents[m], p_languages[m], now()
    FROM unnest(mine) AS m JOIN crawls cr ON cr.id = p_crawls[m]
   ORDER BY cr.workspace_id, p_index_urls[m], m DESC
  ON CONFLICT (workspace_id, url) DO UPDATE SET title = excluded.title, description = excluded.description,
    content = excluded.content, language = excluded.language, updated_at = now();

  -- 4. Each crawl's counters and pages, one crawl row after another, each locked until commit.
  FOR c IN SELECT p_crawls[m] AS id, array_agg(m ORDER BY m) AS pages
             FROM unnest(mine) AS m GROUP BY p_crawls[m] ORDER BY p_crawls[m] LOOP
    UPDATE crawls SET completed = completed + cardinality(c.pages),
                      discovered = discovered + (SELECT count(*) FROM unnest(fresh_crawls) f WHERE f = c.id),
                      progress_at = now()
     WHERE id = c.id
    RETURNING completed - cardinality(c.pages) AS before, completed, "limit",
              discovered - completed - failed - skipped + sitemaps_pending::int AS still_open INTO r;
    INSERT INTO crawl_pages (crawl_id, seq, url_key, depth, document)
    SELECT c.id, r.before + x.o, p_keys[x.m], p_depths[x.m],
           substring(p_documents FROM coalesce(p_document_ends[x.m - 1], 0) + 1
                                 FOR p_document_ends[x.m] - coalesce(p_document_ends[x.m - 1], 0))
      FROM unnest(c.pages) WITH ORDINALITY AS x(m, o);
    RETURN QUERY
      SELECT x.m, (r.before + x.o)::int,
             ARRAY(SELECT f.k FROM unnest(fresh_crawls, fresh_keys, fresh_parents) AS f(fc, k, fp)
                    WHERE f.fc = c.id AND f.fp = p_keys[x.m]),
             r.still_open, r.completed >= r."limit"
        FROM unnest(c.pages) WITH ORDINALITY AS x(m, o);
  END LOOP;
  -- Pages another worker delivered first.
  RETURN QUERY SELECT t.o::int, NULL::int, NULL::text[], NULL::int, NULL::boolean
    FROM generate_series(1, coalesce(array_length(p_crawls, 1), 0)) AS t(o) WHERE NOT (t.o = ANY(mine));
END $$;
