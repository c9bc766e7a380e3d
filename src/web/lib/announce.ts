// One polite live region for short confirmations ("Copied") that have no place of their own on
// the screen, so that screens keep their role="status" regions for their own results.
let region: HTMLElement | null = null;

export function announce(message: string): void {
  if (!region) {
    region = document.createElement('div');
    region.setAttribute('aria-live', 'polite');
    region.className = 'visually-hidden';
    document.body.append(region);
  }
  const target = region;
  target.textContent = '';
  // A fresh text node after a tick is read out even when the message repeats.
  setTimeout(() => {
    target.textContent = message;
  }, 50);
}
