// The API's password rule (at least 10 characters), checked in the page before sending.
export const MIN_PASSWORD = 10;

export function newPasswordProblems(password: string, confirm: string): { password?: string; confirm?: string } {
  if (password.length < MIN_PASSWORD) return { password: `Use at least ${MIN_PASSWORD} characters.` };
  if (password.length > 256) return { password: 'Use at most 256 characters.' };
  if (confirm !== password) return { confirm: 'The passwords do not match.' };
  return {};
}
