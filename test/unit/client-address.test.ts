// Which address a request came from behind trusted proxies (TRUST_PROXY).
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/domain/client-address';

describe('clientAddress', () => {
  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('198.51.100.9', '203.0.113.1', 0)).toBe('198.51.100.9');
    expect(clientAddress(undefined, undefined, 0)).toBe('unknown');
  });
  it('is the entry the trusted proxy appended, never one the client wrote', () => {
    expect(clientAddress('10.0.0.2', '203.0.113.7', 1)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.2', 'evil-1, evil-2, 203.0.113.7', 1)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.2', ['evil', '203.0.113.7'], 1)).toBe('203.0.113.7');
    // An empty last entry is no address: the one before it is the proxy's.
    expect(clientAddress('10.0.0.2', 'evil, 203.0.113.7, ', 1)).toBe('203.0.113.7');
    expect(clientAddress('10.0.0.2', ' , ', 1)).toBe('10.0.0.2');
  });
  it('walks one entry further left per trusted hop', () => {
    // client -> CDN (appends client) -> nginx (appends CDN) -> service
    expect(clientAddress('10.0.0.2', 'spoofed, 203.0.113.7, 192.0.2.10', 2)).toBe('203.0.113.7');
  });
  it('is the left-most address when the chain is shorter than the trusted hops', () => {
    expect(clientAddress('10.0.0.2', undefined, 1)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '203.0.113.7', 3)).toBe('203.0.113.7');
  });
});
