import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { queryClient } from './api/query-client.ts';
import { App } from './app.tsx';
import { isLoadError, reloadOnStaleBuild } from './components/lazy-screen.tsx';
import './styles/index.css';

reloadOnStaleBuild();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root, {
  // A screen whose files did not arrive is shown as such (components/lazy-screen.tsx): a warning,
  // not an error, in the console. Everything else a boundary catches is still an error.
  onCaughtError: (error, info) => {
    if (isLoadError(error)) console.warn('A screen could not be loaded:', error);
    else console.error(error, info.componentStack);
  },
}).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
