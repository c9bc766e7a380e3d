// Every screen at both sizes on the realistic answers of fixtures.ts: the suite is screens.ts's.
import { describeScreens } from './screens';

describeScreens('realistic');
