// The city names thread (geo.ts loadCities): builds every city name of the data named by its
// workerData ({ geoipDb }) and sends them back, then ends.
import { parentPort, workerData } from 'node:worker_threads';
import { geoLocator } from './geo.ts';

const locator = geoLocator(workerData as { geoipDb?: string }) as unknown as { cityNameList(): string[] };
parentPort!.postMessage(locator.cityNameList());
