/** Where to go after signing in: the ?redirect path when it is one of ours, else the application list. */
export function safeRedirect(value: string | null): string {
  // Only same-site paths: `//host` and `/\host` would leave the console (an open redirect).
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/application';
  if (value === '/login' || value.startsWith('/login?')) return '/application';
  return value;
}
