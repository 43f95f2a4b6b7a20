import { Marked, type Tokens } from "marked";

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Only links a reader may follow safely: web addresses and paths; never `javascript:` and kin. */
function safeHref(href: string): string | null {
  const trimmed = href.trim();
  if (
    /^(https?:|mailto:|#|\/|\.{0,2}\/|[\w.-]+(\/|$))/i.test(trimmed) &&
    !/^[a-z][\w+.-]*:/i.test(trimmed.replace(/^(https?|mailto):/i, ""))
  )
    return trimmed;
  return null;
}

/**
 * Artifacts are written by agents, so their Markdown is untrusted: raw HTML is shown as text, not
 * rendered, and links other than web addresses and paths lose their target.
 */
const marked = new Marked({
  gfm: true,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link): string {
      const href = safeHref(token.href);
      const text = this.parser.parseInline(token.tokens);
      return href ? `<a href="${escapeHtml(href)}" rel="noreferrer">${text}</a>` : text;
    },
    image(token: Tokens.Image): string {
      return escapeHtml(token.text || token.href);
    },
  },
});

export function renderMarkdown(text: string): string {
  return marked.parse(text, { async: false }) as string;
}
