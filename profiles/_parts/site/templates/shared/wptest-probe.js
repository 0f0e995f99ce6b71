/* wptest-probe.js: a static script every wptest profile installs (see wptest-probe.css). */
(function () {
  'use strict';
  function probe1(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '1'); return el.querySelectorAll('.wp-block-probe-1').length; }
  function probe2(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '2'); return el.querySelectorAll('.wp-block-probe-2').length; }
  function probe3(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '3'); return el.querySelectorAll('.wp-block-probe-3').length; }
  function probe4(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '4'); return el.querySelectorAll('.wp-block-probe-4').length; }
  function probe5(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '5'); return el.querySelectorAll('.wp-block-probe-5').length; }
  function probe6(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '6'); return el.querySelectorAll('.wp-block-probe-6').length; }
  function probe7(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '7'); return el.querySelectorAll('.wp-block-probe-7').length; }
  function probe8(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '8'); return el.querySelectorAll('.wp-block-probe-8').length; }
  function probe9(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '9'); return el.querySelectorAll('.wp-block-probe-9').length; }
  function probe10(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '10'); return el.querySelectorAll('.wp-block-probe-10').length; }
  function probe11(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '11'); return el.querySelectorAll('.wp-block-probe-11').length; }
  function probe12(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '12'); return el.querySelectorAll('.wp-block-probe-12').length; }
  function probe13(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '13'); return el.querySelectorAll('.wp-block-probe-13').length; }
  function probe14(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '14'); return el.querySelectorAll('.wp-block-probe-14').length; }
  function probe15(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '15'); return el.querySelectorAll('.wp-block-probe-15').length; }
  function probe16(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '16'); return el.querySelectorAll('.wp-block-probe-16').length; }
  function probe17(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '17'); return el.querySelectorAll('.wp-block-probe-17').length; }
  function probe18(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '18'); return el.querySelectorAll('.wp-block-probe-18').length; }
  function probe19(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '19'); return el.querySelectorAll('.wp-block-probe-19').length; }
  function probe20(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '20'); return el.querySelectorAll('.wp-block-probe-20').length; }
  function probe21(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '21'); return el.querySelectorAll('.wp-block-probe-21').length; }
  function probe22(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '22'); return el.querySelectorAll('.wp-block-probe-22').length; }
  function probe23(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '23'); return el.querySelectorAll('.wp-block-probe-23').length; }
  function probe24(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '24'); return el.querySelectorAll('.wp-block-probe-24').length; }
  function probe25(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '25'); return el.querySelectorAll('.wp-block-probe-25').length; }
  function probe26(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '26'); return el.querySelectorAll('.wp-block-probe-26').length; }
  function probe27(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '27'); return el.querySelectorAll('.wp-block-probe-27').length; }
  function probe28(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '28'); return el.querySelectorAll('.wp-block-probe-28').length; }
  function probe29(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '29'); return el.querySelectorAll('.wp-block-probe-29').length; }
  function probe30(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '30'); return el.querySelectorAll('.wp-block-probe-30').length; }
  function probe31(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '31'); return el.querySelectorAll('.wp-block-probe-31').length; }
  function probe32(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '32'); return el.querySelectorAll('.wp-block-probe-32').length; }
  function probe33(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '33'); return el.querySelectorAll('.wp-block-probe-33').length; }
  function probe34(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '34'); return el.querySelectorAll('.wp-block-probe-34').length; }
  function probe35(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '35'); return el.querySelectorAll('.wp-block-probe-35').length; }
  function probe36(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '36'); return el.querySelectorAll('.wp-block-probe-36').length; }
  function probe37(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '37'); return el.querySelectorAll('.wp-block-probe-37').length; }
  function probe38(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '38'); return el.querySelectorAll('.wp-block-probe-38').length; }
  function probe39(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '39'); return el.querySelectorAll('.wp-block-probe-39').length; }
  function probe40(el) { if (!el) { return null; } el.setAttribute('data-wptest-probe', '40'); return el.querySelectorAll('.wp-block-probe-40').length; }
  window.wptestProbe = [probe1, probe2, probe3, probe4, probe5, probe6, probe7, probe8, probe9, probe10, probe11, probe12, probe13, probe14, probe15, probe16, probe17, probe18, probe19, probe20, probe21, probe22, probe23, probe24, probe25, probe26, probe27, probe28, probe29, probe30, probe31, probe32, probe33, probe34, probe35, probe36, probe37, probe38, probe39, probe40];
}());
