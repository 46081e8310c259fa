import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demoSettings, demoUrl } from './demo.js';

describe('the demo shop of make up', () => {
  it('is on 127.0.0.3 at the HTTP port, the one loopback address let through', () => {
    assert.deepEqual(demoSettings({}, 8080), { DEMO_SITE: '127.0.0.3:8080', EGRESS_ALLOW: '127.0.0.3/32' });
    assert.equal(demoUrl('127.0.0.3:8080'), 'http://127.0.0.3:8080/');
  });

  it("keeps the .env's ranges and adds the shop's address once", () => {
    assert.deepEqual(demoSettings({ EGRESS_ALLOW: '10.0.0.0/8, 192.168.1.0/24' }, 9000), {
      DEMO_SITE: '127.0.0.3:9000',
      EGRESS_ALLOW: '10.0.0.0/8,192.168.1.0/24,127.0.0.3/32',
    });
    assert.equal(demoSettings({ EGRESS_ALLOW: '127.0.0.3/32' }, 8080).EGRESS_ALLOW, '127.0.0.3/32');
  });

  it("serves the shop where the .env's DEMO_SITE says, and lets that address through", () => {
    assert.deepEqual(demoSettings({ DEMO_SITE: '127.0.0.9:7000', EGRESS_ALLOW: '' }, 8080), {
      DEMO_SITE: '127.0.0.9:7000',
      EGRESS_ALLOW: '127.0.0.9/32',
    });
  });
});
