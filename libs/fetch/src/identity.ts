// The one browser identity both engines present (docs/decisions/0011-browser-identity.md):
// the fetch engine claims to be the Chromium browser-host really runs, with the
// same User-Agent and the same client hints.

/**
 * The major version of the Chromium the image installs (Debian's `chromium`).
 * browser-host presents its browser's real version; the fetch engine claims
 * this one. browser-host's render.test.ts fails when the two part.
 */
export const CHROMIUM_MAJOR = 156;

/** Client hints Chromium sends on every request to a secure origin, without being asked. */
export const CLIENT_HINT_HEADERS = ['sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform'] as const;

export interface Brand {
  brand: string;
  version: string;
}

export interface BrowserIdentity {
  userAgent: string;
  /** The low-entropy client hints, as request headers. */
  clientHints: Record<(typeof CLIENT_HINT_HEADERS)[number], string>;
  /** The same identity as CDP's Emulation.UserAgentMetadata, so the browser's hints and navigator.userAgentData agree. */
  metadata: {
    brands: Brand[];
    fullVersionList: Brand[];
    platform: string;
    platformVersion: string;
    architecture: string;
    bitness: string;
    model: string;
    mobile: boolean;
    /** navigator.userAgentData's uaFullVersion (deprecated, still answered). */
    fullVersion: string;
    wow64: boolean;
    formFactors: string[];
  };
}

// Chromium's GREASE brand (components/embedder_support/user_agent_utils.cc): a
// decoy brand whose spelling, version and position follow from the major version.
const GREASE_CHARS = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
const GREASE_VERSIONS = ['8', '99', '24'];

/** The brand list Chromium (without Google Chrome's brand) sends for `major`. */
export function chromiumBrands(major: number): Brand[] {
  const grease = {
    brand: `Not${GREASE_CHARS[major % 11]}A${GREASE_CHARS[(major + 1) % 11]}Brand`,
    version: GREASE_VERSIONS[major % 3] as string,
  };
  const list = [grease, { brand: 'Chromium', version: String(major) }];
  const order = [major % 2, (major + 1) % 2];
  const shuffled: Brand[] = [];
  list.forEach((brand, i) => {
    shuffled[order[i] as number] = brand;
  });
  return shuffled;
}

const headerList = (brands: Brand[]) => brands.map((b) => `"${b.brand}";v="${b.version}"`).join(', ');

/**
 * Linux desktop or Android phone: where the browser really runs, so the
 * platform the page sees (navigator.platform, fonts, WebGL) agrees with it.
 * `version` is the browser's full version when known ("156.0.8078.79"); the
 * User-Agent carries only its major, as Chromium's reduced User-Agent does.
 */
export function browserIdentity(mobile: boolean, version = `${CHROMIUM_MAJOR}.0.0.0`): BrowserIdentity {
  const major = Number.parseInt(version, 10);
  const brands = chromiumBrands(major);
  const platform = mobile ? 'Android' : 'Linux';
  const userAgent = mobile
    ? `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Mobile Safari/537.36`
    : `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
  return {
    userAgent,
    clientHints: {
      'sec-ch-ua': headerList(brands),
      'sec-ch-ua-mobile': mobile ? '?1' : '?0',
      'sec-ch-ua-platform': `"${platform}"`,
    },
    metadata: {
      brands,
      fullVersionList: brands.map((b) => ({ ...b, version: b.brand === 'Chromium' ? version : `${b.version}.0.0.0` })),
      platform,
      // What Chromium 156 answers on Linux (getHighEntropyValues and Sec-CH-UA-Platform-Version alike).
      platformVersion: mobile ? '14.0.0' : '',
      architecture: mobile ? '' : 'x86',
      bitness: mobile ? '' : '64',
      model: mobile ? 'Pixel 8' : '',
      mobile,
      fullVersion: version,
      wow64: false,
      formFactors: [mobile ? 'Mobile' : 'Desktop'],
    },
  };
}

/** The version in a browser's version string: "HeadlessChrome/156.0.8078.79" is 156.0.8078.79. */
export function versionOf(product: string): string | undefined {
  return /\/(\d+(?:\.\d+)*)/.exec(product)?.[1];
}
