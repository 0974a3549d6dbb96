/**
 * A tiny PDF writer for tests: valid PDF 1.4 with exact xref offsets, one content stream per
 * page. A page is text (Helvetica, one line per `\n`) or a greyscale image with no text layer,
 * which is what a scanned page looks like to a PDF reader.
 */
import { deflateSync } from 'node:zlib';

/** A page with no text layer: 8-bit greyscale pixels drawn over the whole page. */
export interface ImagePage {
  image: { width: number; height: number; grey: Uint8Array };
}
export type PdfPage = string | ImagePage;

export interface PdfOptions {
  /** Page size in PDF units (1/72 inch); default US Letter. */
  width?: number;
  height?: number;
  title?: string;
}

const escapeText = (text: string): string => text.replace(/[\\()]/g, (c) => `\\${c}`);

function textStream(text: string, height: number): string {
  const lines = text.split('\n').map((line) => `(${escapeText(line)}) Tj T*`);
  return `BT /F1 14 Tf 18 TL 72 ${height - 72} Td ${lines.join(' ')} ET`;
}

/** Writes a PDF whose pages hold the given texts or images. */
export function buildPdf(pages: PdfPage[], options: PdfOptions = {}): Uint8Array {
  const width = options.width ?? 612;
  const height = options.height ?? 792;
  // Bodies are latin-1 strings, so binary image streams keep one character per byte.
  const objects: string[] = [];
  const add = (body: string): number => objects.push(body);
  const catalog = add('');
  const pagesId = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const page of pages) {
    let resources = `<< /Font << /F1 ${font} 0 R >> >>`;
    let stream: string;
    if (typeof page === 'string') {
      stream = textStream(page, height);
    } else {
      const { width: w, height: h, grey } = page.image;
      const data = deflateSync(grey).toString('latin1');
      const image = add(
        `<< /Type /XObject /Subtype /Image /Width ${w} /Height ${h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n${data}\nendstream`,
      );
      resources = `<< /XObject << /Im1 ${image} 0 R >> >>`;
      stream = `q ${width} 0 0 ${height} 0 0 cm /Im1 Do Q`;
    }
    const content = add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 ${width} ${height}] /Resources ${resources} /Contents ${content} 0 R >>`,
      ),
    );
  }
  const info = options.title ? add(`<< /Title (${escapeText(options.title)}) >>`) : null;
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R >>`;
  objects[pagesId - 1] =
    `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  const infoRef = info ? ` /Info ${info} 0 R` : '';
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${infoRef} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}
