import iconv from 'iconv-lite';

/** Text whose bytes differ between windows-1252 and ISO-8859-1 (the curly quotes, dash and euro). */
export const WESTERN_TEXT =
  'Café crème at the “Müller” bakery – €5 for a naïve tourist’s façade tour, Straße and Ærø included. ' +
  'Les élèves étudièrent à l’école près du théâtre; die Bürger gründeten ein Museum für Geschichte.';

/** Natsume Sōseki, I Am a Cat (public domain): long enough for statistical detection. */
export const JAPANESE_TEXT =
  '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所で' +
  'ニャーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間というものを見た。しかもあとで聞くと' +
  'それは書生という人間中で一番獰悪な種族であったそうだ。この書生というのは時々我々を捕えて煮て食うという話である。';

export interface CharsetPage {
  readonly path: string;
  /** The encoding the body bytes are in. */
  readonly encoding: string;
  /** The Content-Type header sent, charset included or not. */
  readonly contentType: string;
  /** The text a correct decoder must find in the page. */
  readonly text: string;
  readonly declared: 'header' | 'meta' | 'http-equiv' | 'bom' | 'none';
}

export const CHARSET_PAGES: readonly CharsetPage[] = [
  page('/charset/windows-1252', 'windows-1252', 'text/html; charset=windows-1252', WESTERN_TEXT, 'header'),
  page('/charset/windows-1252-meta', 'windows-1252', 'text/html', WESTERN_TEXT, 'http-equiv'),
  page('/charset/latin1-label', 'windows-1252', 'text/html; charset=ISO-8859-1', WESTERN_TEXT, 'header'),
  page('/charset/shift_jis', 'shift_jis', 'text/html; charset=Shift_JIS', JAPANESE_TEXT, 'header'),
  page('/charset/shift_jis-meta', 'shift_jis', 'text/html', JAPANESE_TEXT, 'meta'),
  page('/charset/shift_jis-undeclared', 'shift_jis', 'text/html', JAPANESE_TEXT, 'none'),
  page('/charset/euc-jp-undeclared', 'euc-jp', 'text/html', JAPANESE_TEXT, 'none'),
  page('/charset/utf-8-undeclared', 'utf-8', 'text/html', JAPANESE_TEXT, 'none'),
  page('/charset/utf-8-bom', 'utf-8', 'text/html; charset=windows-1252', WESTERN_TEXT, 'bom'),
  page('/charset/plain-windows-1252', 'windows-1252', 'text/plain; charset=windows-1252', WESTERN_TEXT, 'header'),
];

function page(
  path: string,
  encoding: string,
  contentType: string,
  text: string,
  declared: CharsetPage['declared'],
): CharsetPage {
  return { path, encoding, contentType, text, declared };
}

export function charsetBody(p: CharsetPage): Buffer {
  if (p.contentType.startsWith('text/plain')) return iconv.encode(`${p.text}\n`, p.encoding);
  const meta =
    p.declared === 'meta'
      ? `<meta charset="${p.encoding}">`
      : p.declared === 'http-equiv'
        ? `<meta http-equiv="Content-Type" content="text/html; charset=${p.encoding}">`
        : '';
  const lang = p.text === JAPANESE_TEXT ? 'ja' : 'fr';
  const paragraphs = Array.from({ length: 4 }, () => `<p>${p.text}</p>`).join('\n');
  const html = `<!doctype html>\n<html lang="${lang}"><head>${meta}<title>Charset ${p.path}</title></head>\n<body><main><h1>${p.encoding}</h1>\n${paragraphs}\n</main></body></html>\n`;
  const bytes = iconv.encode(html, p.encoding);
  return p.declared === 'bom' ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) : bytes;
}
