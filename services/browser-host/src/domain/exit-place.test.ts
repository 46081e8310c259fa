// Where an exit comes out gives its sessions' time zone and locale: from
// what the operator says, its country, or the country its proxy's user name
// asks for; nothing known gives nothing (UTC, en-US stay).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atPlace, browserFace, renderFace } from './browser-face.js';
import { countryFace, parsePlace, placeFace, proxyCountry } from './exit-place.js';
import { parseExits } from './exits.js';
import { sessionSettings } from './session-options.js';

test("a country gives its main zone and its browsers' language", () => {
  assert.deepEqual(countryFace('de'), { timezone: 'Europe/Berlin', locale: 'de-DE' });
  assert.deepEqual(countryFace('US'), { timezone: 'America/New_York', locale: 'en-US' });
  assert.deepEqual(countryFace('FR'), { timezone: 'Europe/Paris', locale: 'fr-FR' });
  assert.deepEqual(countryFace('JP'), { timezone: 'Asia/Tokyo', locale: 'ja-JP' });
  assert.deepEqual(countryFace('IN'), { timezone: 'Asia/Calcutta', locale: 'en-IN' });
  assert.deepEqual(countryFace('BR'), { timezone: 'America/Sao_Paulo', locale: 'pt-BR' });
});

test("a proxy's user name names a country as residential providers spell it", () => {
  assert.equal(proxyCountry('http://brd-customer-c1-zone-res-country-de:pw@proxy.example:22225'), 'DE');
  assert.equal(proxyCountry('http://customer-bob-cc-FR-sessid-1:pw@pr.example:7777'), 'FR');
  assert.equal(proxyCountry('socks5://user-sp1-country-jp:pw@gate.example:7000'), 'JP');
  assert.equal(proxyCountry('http://user:pw@proxy.example:8080'), undefined);
  assert.equal(proxyCountry('http://user-country-xx:pw@proxy.example:8080'), undefined, 'XX is no country');
  assert.equal(proxyCountry('http://discountry-de:pw@proxy.example:8080'), undefined, 'a part of a word is not');
});

test("what the operator says wins over the country, the country over the proxy's", () => {
  const url = 'http://u-country-jp:pw@p.example:1';
  assert.deepEqual(placeFace({ url }), { timezone: 'Asia/Tokyo', locale: 'ja-JP', knownBy: 'proxy user name' });
  assert.deepEqual(placeFace({ url, country: 'CH' }), {
    timezone: 'Europe/Zurich',
    locale: 'de-CH',
    knownBy: 'country',
  });
  assert.deepEqual(placeFace({ url, country: 'CH', locale: 'fr-CH' }), {
    timezone: 'Europe/Zurich',
    locale: 'fr-CH',
    knownBy: 'configured',
  });
  assert.deepEqual(placeFace({ timezone: 'America/Chicago' }), { timezone: 'America/Chicago', knownBy: 'configured' });
  assert.deepEqual(placeFace({}), {});
});

test('an exit and EGRESS_PLACE take a place; a wrong one is refused, naming the field', () => {
  const [exit] = parseExits(
    JSON.stringify([{ id: 'de', kind: 'residential', region: 'eu', url: 'http://p:1', country: 'DE' }]),
  );
  assert.equal(exit?.country, 'DE');
  assert.throws(
    () =>
      parseExits(
        JSON.stringify([{ id: 'x', kind: 'datacenter', region: 'eu', url: 'http://p:1', timezone: 'Mars/Base' }]),
      ),
    /0\.timezone: an IANA time zone/,
  );
  assert.deepEqual(parsePlace('{"country":"GB"}'), { country: 'GB' });
  assert.deepEqual(parsePlace(''), {});
  assert.throws(() => parsePlace('{"country":"EU"}'), /country: an ISO 3166-1 alpha-2/);
  assert.throws(() => parsePlace('{"city":"Paris"}'), /Unrecognized key/);
});

test('a session takes the place of its exit for what it did not ask itself', () => {
  const berlin = placeFace({ country: 'DE' });
  const none = sessionSettings(undefined);
  const placed = atPlace(none, undefined, berlin);
  assert.deepEqual([placed.timezone, placed.locale], ['Europe/Berlin', 'de-DE']);
  const asked = { timezone: 'Asia/Tokyo' } as Parameters<typeof sessionSettings>[0];
  const own = atPlace(sessionSettings(asked), asked, berlin);
  assert.deepEqual([own.timezone, own.locale], ['Asia/Tokyo', 'de-DE']);
  assert.deepEqual(atPlace(none, undefined, {}), none, 'nothing known: UTC and en-US as before');
  const face = browserFace(placed, '156.0.8078.108');
  assert.equal(face.env.TZ, 'Europe/Berlin');
  assert.equal(face.env.LANGUAGE, 'de_DE');
  assert.ok(face.args.includes('--accept-lang=de-DE,de'));
  assert.equal(renderFace('156.0.8078.108', placeFace({ country: 'GB' })).env.TZ, 'Europe/London');
});
