import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserIdentity, CHROMIUM_MAJOR, chromiumBrands, versionOf } from './identity.js';

describe('browser identity', () => {
  it("spells Chromium's GREASE brand as Chromium does", () => {
    // Read from Chromium 156's own sec-ch-ua, and derived by Chromium's rule for others.
    assert.deepEqual(chromiumBrands(156), [
      { brand: 'Not:A-Brand', version: '8' },
      { brand: 'Chromium', version: '156' },
    ]);
    assert.deepEqual(chromiumBrands(131), [
      { brand: 'Chromium', version: '131' },
      { brand: 'Not_A Brand', version: '24' },
    ]);
  });

  it('claims one version in the User-Agent, the client hints and the metadata', () => {
    for (const mobile of [false, true]) {
      const id = browserIdentity(mobile, '156.0.8078.79');
      assert.match(id.userAgent, /Chrome\/156\.0\.0\.0 /);
      assert.equal(id.userAgent.includes('Mobile'), mobile);
      assert.equal(id.clientHints['sec-ch-ua'], '"Not:A-Brand";v="8", "Chromium";v="156"');
      assert.equal(id.clientHints['sec-ch-ua-mobile'], mobile ? '?1' : '?0');
      assert.equal(id.clientHints['sec-ch-ua-platform'], mobile ? '"Android"' : '"Linux"');
      assert.deepEqual(
        id.metadata.fullVersionList.map((b) => b.version),
        ['8.0.0.0', '156.0.8078.79'],
      );
    }
  });

  it('defaults to the Chromium the image installs', () => {
    assert.match(browserIdentity(false).userAgent, new RegExp(`Chrome/${CHROMIUM_MAJOR}\\.`));
  });

  it("reads the version from the browser's product string", () => {
    assert.equal(versionOf('HeadlessChrome/156.0.8078.79'), '156.0.8078.79');
    assert.equal(versionOf('Chrome/157.0.1.2'), '157.0.1.2');
    assert.equal(versionOf('Firefox'), undefined);
  });
});
