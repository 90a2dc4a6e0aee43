/**
 * Where the bundler put the DICOM codecs' .wasm files. Importing with `?url`
 * only emits each file as an asset of our origin (precached like every
 * built file, so compressed DICOM imports offline); nothing is fetched until
 * a file needs that codec.
 */
import charls from '@cornerstonejs/codec-charls/decodewasm?url';
import libjpegTurbo from '@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasm?url';
import openjpeg from '@cornerstonejs/codec-openjpeg/decodewasm?url';
import { setCodecWasmUrls } from '../../src/core/imaging/codecs/index.ts';

setCodecWasmUrls({ charls, openjpeg, 'libjpeg-turbo': libjpegTurbo });
