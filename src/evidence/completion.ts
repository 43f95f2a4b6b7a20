/** A task that reached a done status in a commit, as verify judges it. */
export interface Completion {
  commit: string;
  subject: string;
  task: number;
  from: string | null;
  to: string;
  session: string | null;
  /** The completion's evidence file (verified completions), where `verify --rerun` finds its checks. */
  evidencePath?: string;
}
