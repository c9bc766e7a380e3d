// Every screen at both sizes on Prism's own answers: the suite is screens.ts's.
import { describeScreens } from './screens';

describeScreens('prism');
