-- A URL that will not be fetched: skipped, its claim given back if it held one.
CREATE OR REPLACE FUNCTION crawl_skip(p_crawl UUID, p_key TEXT, p_held_claim BOOLEAN) RETURNS VOID
LANGUAGE sql AS $$
  UPDATE crawl_urls SET state = 'skipped', lease_until = NULL WHERE crawl_id = p_crawl AND url_key = p_key;
  UPDATE crawls SET skipped = skipped + 1, claimed = claimed - (CASE WHEN p_held_claim THEN 1 ELSE 0 END)
   WHERE id = p_crawl;
$$;
