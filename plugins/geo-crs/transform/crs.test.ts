import assert from 'node:assert/strict';
import { SUPPORTED_CRS, UnknownCrsError, canonicalCrsUri, parseCrsUri, transform } from './index.js';

describe('CRS registry', function () {
  it('lists the 11 CRSs of the geospatial rules with canonical URIs from the CRS table', function () {
    assert.deepEqual(
      SUPPORTED_CRS.map((crs) => crs.uri),
      [
        'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
        'http://www.opengis.net/def/crs/OGC/0/CRS84h',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/4258',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/4937',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/9067',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/7931',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/9000',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/7912',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/3857',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/28992',
        'http://www.opengis.net/def/crs/EPSG/9.9.1/7415',
      ],
    );
  });

  it('declares dimension and axis order per CRS', function () {
    const axes = Object.fromEntries(SUPPORTED_CRS.map((crs) => [crs.id, `${crs.dimension}:${crs.axes.join(',')}`]));
    assert.deepEqual(axes, {
      CRS84: '2:lon,lat',
      CRS84h: '3:lon,lat,h',
      'EPSG:4258': '2:lat,lon',
      'EPSG:4937': '3:lat,lon,h',
      'EPSG:9067': '2:lat,lon',
      'EPSG:7931': '3:lat,lon,h',
      'EPSG:9000': '2:lat,lon',
      'EPSG:7912': '3:lat,lon,h',
      'EPSG:3857': '2:E,N',
      'EPSG:28992': '2:x,y',
      'EPSG:7415': '3:x,y,H',
    });
  });

  it('accepts http and https, EPSG versions 0 and 9.9.1, and short ids', function () {
    const canonical = 'http://www.opengis.net/def/crs/EPSG/9.9.1/28992';
    for (const uri of [
      'http://www.opengis.net/def/crs/EPSG/0/28992',
      'https://www.opengis.net/def/crs/EPSG/0/28992',
      'http://www.opengis.net/def/crs/EPSG/9.9.1/28992',
      'https://www.opengis.net/def/crs/EPSG/9.9.1/28992',
      'EPSG:28992',
      ' epsg:28992 ',
    ]) {
      assert.equal(canonicalCrsUri(uri), canonical, uri);
    }
    assert.equal(canonicalCrsUri('https://www.opengis.net/def/crs/OGC/1.3/CRS84'), 'http://www.opengis.net/def/crs/OGC/1.3/CRS84');
    assert.equal(canonicalCrsUri('http://www.opengis.net/def/crs/OGC/0/CRS84h'), 'http://www.opengis.net/def/crs/OGC/0/CRS84h');
    assert.equal(parseCrsUri('CRS84h').dimension, 3);
  });

  it('rejects unknown CRSs and wrong URI forms with UnknownCrsError (code UNKNOWN_CRS)', function () {
    for (const uri of [
      'http://www.opengis.net/def/crs/EPSG/0/4326',
      'http://www.opengis.net/def/crs/EPSG/9.9/28992',
      'http://www.opengis.net/def/crs/OGC/1.3/CRS84h',
      'http://www.opengis.net/def/crs/OGC/0/CRS84',
      'http://example.org/def/crs/EPSG/0/28992',
      'http://www.opengis.net/def/crs/EPSG/0/28992/',
      '',
      'EPSG:999999',
    ]) {
      assert.throws(() => parseCrsUri(uri), (error: unknown) => error instanceof UnknownCrsError && error.code === 'UNKNOWN_CRS', uri);
    }
  });
});

describe('CrsInput type', () => {
  it('rejects an unsupported id at compile time, as parseCrsUri does at run time', () => {
    // @ts-expect-error EPSG:4326 is no supported CRS (the library speaks CRS84 for lon/lat)
    assert.throws(() => transform([5, 52], 'EPSG:4326', 'CRS84'), UnknownCrsError);
  });
});
