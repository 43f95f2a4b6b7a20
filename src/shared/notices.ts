/**
 * Things a command did besides its result that its user should know (a foreign change to the store
 * undone or adopted). The store notes them; cli/main.ts prints them on stderr when the command ends.
 */
const pending: string[] = [];

export function addNotice(text: string): void {
  pending.push(text);
}

export function takeNotices(): string[] {
  return pending.splice(0);
}
