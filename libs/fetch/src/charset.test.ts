import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AllowList } from '@wap/netguard';
import { CHARSET_PAGES, startTestSite, type TestSite, WESTERN_TEXT } from '@wap/testsite';
import iconv from 'iconv-lite';
import { createFetchAgent, detectCharset, type FetchAgent, fetchPage, isTextual, normaliseCharset } from './index.js';

describe('charset detection and decoding over HTTP', () => {
  let site: TestSite;
  let agent: FetchAgent;
  before(async () => {
    site = await startTestSite({ pages: 1 });
    agent = createFetchAgent({ allow: AllowList.parse('127.0.0.0/8') });
  });
  after(async () => {
    await agent.close();
    await site.close();
  });

  for (const page of CHARSET_PAGES) {
    it(`decodes ${page.path} (${page.encoding}, declared by ${page.declared})`, async () => {
      const fetched = await fetchPage(`${site.url}${page.path}`, { agent });
      assert.ok(fetched.body?.includes(page.text), `decoded as ${JSON.stringify(fetched.charset)}`);
      assert.ok(!fetched.body?.includes('\uFFFD'));
      assert.ok(!fetched.body?.startsWith('\uFEFF'), 'BOM kept');
      const expected = { header: 'header', meta: 'meta', 'http-equiv': 'meta', bom: 'bom', none: undefined }[
        page.declared
      ];
      if (expected) assert.equal(fetched.charset?.source, expected);
    });
  }
});

describe('detectCharset', () => {
  const western = iconv.encode(WESTERN_TEXT, 'windows-1252');

  it('puts the BOM above the header, and the header above <meta>', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<meta charset="euc-jp">')]);
    assert.deepEqual(detectCharset(bom, 'text/html; charset=windows-1252'), { charset: 'utf-8', source: 'bom' });
    const meta = Buffer.from('<html><head><meta charset="euc-jp"></head>');
    assert.deepEqual(detectCharset(meta, 'text/html; charset="Shift_JIS"'), {
      charset: 'windows-31j',
      source: 'header',
    });
    assert.deepEqual(detectCharset(meta, 'text/html'), { charset: 'euc-jp', source: 'meta' });
  });

  it('reads only the first 1024 bytes for <meta>, and the XML declaration', () => {
    const late = Buffer.from(`<html>${' '.repeat(1100)}<meta charset="euc-jp">`);
    assert.equal(detectCharset(late, 'text/html').source, 'utf8');
    const xml = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><urlset/>');
    assert.deepEqual(detectCharset(xml, 'application/xml'), { charset: 'windows-1252', source: 'xml' });
  });

  it('ignores unknown labels and a <meta> claiming UTF-16', () => {
    assert.equal(detectCharset(Buffer.from('plain'), 'text/html; charset=klingon').source, 'utf8');
    assert.deepEqual(detectCharset(Buffer.from('<meta charset="utf-16">'), 'text/html'), {
      charset: 'utf-8',
      source: 'meta',
    });
  });

  it('falls back to statistics for bytes that are not UTF-8', () => {
    const guess = detectCharset(Buffer.concat([western, western, western]), 'text/html');
    assert.equal(guess.source, 'detected');
    assert.ok(iconv.decode(Buffer.concat([western]), guess.charset).includes('Café crème'));
  });

  it('maps labels the way browsers do', () => {
    assert.equal(normaliseCharset('ISO-8859-1'), 'windows-1252');
    assert.equal(normaliseCharset('us-ascii'), 'windows-1252');
    assert.equal(normaliseCharset('"UTF8"'), 'utf-8');
    assert.equal(normaliseCharset('x-sjis'), 'windows-31j');
    assert.equal(normaliseCharset('GB2312'), 'gbk');
    assert.equal(normaliseCharset('nonsense'), undefined);
  });
});

describe('isTextual', () => {
  it('follows the declared type, and sniffs only when there is none', () => {
    assert.equal(isTextual('text/html; charset=utf-8', Buffer.from('x')), true);
    assert.equal(isTextual('application/xhtml+xml', Buffer.from('x')), true);
    assert.equal(isTextual('application/rss+xml', Buffer.from('x')), true);
    assert.equal(isTextual('application/vnd.api+json', Buffer.from('x')), true);
    assert.equal(isTextual('application/pdf', Buffer.from('x')), false);
    assert.equal(isTextual('image/png', Buffer.from('x')), false);
    assert.equal(isTextual('application/octet-stream', Buffer.from('<html>')), false);
    assert.equal(isTextual('', Buffer.from('<!doctype html><p>hi')), true);
    assert.equal(isTextual('', Buffer.from('%PDF-1.4 ...')), false);
    assert.equal(isTextual('', Buffer.from([0x41, 0x00, 0x42])), false);
  });
});
