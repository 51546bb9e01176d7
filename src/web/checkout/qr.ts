/**
 * A QR code of `text` as an inline SVG string, made on the server (no script, no image request). Dark modules are one
 * path; the quiet zone is the SVG's own margin so it scans on any background.
 */
export async function qrSvg(text: string, label: string): Promise<string> {
  // Loaded at the first checkout page, not at start-up (with its PNG encoder, 130 kB of the bundle).
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 2,
    color: { dark: '#111827ff', light: '#ffffffff' },
  });
  // The library's output is attribute-only markup of its own; we add the accessible name (escaped) and drop the fixed size.
  return svg
    .trim()
    .replace(/\swidth="\d+"|\sheight="\d+"/g, '')
    .replace(
      '<svg ',
      `<svg class="qr-code" role="img" aria-label="${escapeAttribute(label)}" focusable="false" `,
    );
}

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
