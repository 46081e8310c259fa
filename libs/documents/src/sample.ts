import { writePdf } from './write-pdf.js';

/**
 * A small valid PDF (a heading and a paragraph) that a new document thread
 * reads once, so PDF.js is loaded and warm before the first caller's document.
 */
export function samplePdf(): Uint8Array {
  const text =
    'BT /F1 18 Tf 72 720 Td (Sample document) Tj ET BT /F1 11 Tf 72 690 Td (A paragraph of body text to read.) Tj ET';
  return new Uint8Array(
    writePdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ]),
  );
}
