// The shells a completion script is written for (completions/chatflow.<shell> at the package root):
// the `completion` command's choices and its handler's argument.
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];
