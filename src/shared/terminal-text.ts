/**
 * Text from repositories and agents (task titles, phase names, agent errors, file names) as a terminal
 * may show it: every control character but newline and tab — an escape sequence that would clear the
 * screen, retitle the window, rewrite the line above or hide text, a lone carriage return that would
 * overwrite the line — is shown as `\xNN` instead of obeyed (a CRLF line end is a line end). Baton's own
 * terminal codes (the progress board's redraw) are added after, never passed through here.
 */
export function inert(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g,
      (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
    );
}
