/* html.c - the tolerant HTML tokenizer and extractor (see html.h).
 *
 * Owns tokenizing (HTML5 tokenizer rules, simplified: no tree is built, so
 * nesting costs nothing), character references, the choice of what text
 * goes to which section, links, META handling and the JavaScript redirect
 * patterns.  Charsets are charset.c's, URL resolution url.c's, words
 * tokenize.c's.
 *
 * Choices, where browsers and ASPseek leave room:
 *  - Text inside <script>, <style>, <iframe> (fallback content) and the
 *    second and later <title> is not indexed; <noscript>, <noframes> and
 *    <noembed> are, because a crawler runs no scripts and shows no frames,
 *    so their text is what such a client gets.  <textarea>/<xmp> text is body.
 *  - <!--UdmComment-->…<!--/UdmComment--> and <!--noindex-->…<!--/noindex-->
 *    (ASPseek, Yandex) drop body and anchor text; tags inside still count
 *    (title, META, links are still seen).
 *  - <![CDATA[…]]> is text (what XHTML authors mean), not a bogus comment.
 *  - An unclosed first <title> ends at the next '<' (browsers would eat the
 *    whole page into the title); unclosed <script>/<style> run to the end as
 *    in browsers.
 *  - Inline tags (b, span, a, font, …) do not break words, block tags break
 *    with a newline, every other tag with a space.
 *  - Only svg/math nesting is tracked (a <title> inside an icon is not the
 *    page title), saturating at MAX_HTML_DEPTH.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "buf.h"
#include "caps.h"
#include "charset.h"
#include "html.h"
#include "log.h"
#include "util.h"

#define NONE SIZE_MAX

static bool is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Byte classes of the tag scanner (one load per byte instead of a chain of
 * compares): whitespace, and the bytes that end a tag name, an attribute
 * name and an unquoted value. */
enum { CC_WS = 1, CC_NAME_END = 2, CC_ATTR_END = 4, CC_VALUE_END = 8 };
#define CC_WS_ALL (CC_WS | CC_NAME_END | CC_ATTR_END | CC_VALUE_END)
static const unsigned char cclass[256] = {
	[' '] = CC_WS_ALL, ['\t'] = CC_WS_ALL, ['\n'] = CC_WS_ALL, ['\f'] = CC_WS_ALL,
	['\r'] = CC_WS_ALL, ['/'] = CC_NAME_END | CC_ATTR_END,
	['>'] = CC_NAME_END | CC_ATTR_END | CC_VALUE_END, ['='] = CC_ATTR_END,
};

static bool is_alpha(unsigned char c)
{
	return (c | 32) >= 'a' && (c | 32) <= 'z';
}

static bool is_alnum(unsigned char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

/* --- character references ------------------------------------------------- */

struct entity {
	const char *name; /* with its ';', or without for the legacy forms */
	const char *utf8;
};

/* The WHATWG HTML named character references
 * (https://html.spec.whatwg.org/entities.json), 2231 entries, including the
 * 106 legacy names browsers accept without ';'.  Generated from Python's
 * html.entities.html5 (the same table), sorted by strcmp, with
 *   for k, v in sorted(html.entities.html5.items(), key=lambda e: e[0].encode()):
 *       print('{ "%s", "%s" },' % (k, "".join("\\x%02x" % b for b in v.encode())))
 */
static const struct entity entities[] = {
	{ "AElig", "\xc3\x86" }, { "AElig;", "\xc3\x86" }, { "AMP", "\x26" }, { "AMP;", "\x26" },
	{ "Aacute", "\xc3\x81" }, { "Aacute;", "\xc3\x81" }, { "Abreve;", "\xc4\x82" },
	{ "Acirc", "\xc3\x82" }, { "Acirc;", "\xc3\x82" }, { "Acy;", "\xd0\x90" },
	{ "Afr;", "\xf0\x9d\x94\x84" }, { "Agrave", "\xc3\x80" }, { "Agrave;", "\xc3\x80" },
	{ "Alpha;", "\xce\x91" }, { "Amacr;", "\xc4\x80" }, { "And;", "\xe2\xa9\x93" },
	{ "Aogon;", "\xc4\x84" }, { "Aopf;", "\xf0\x9d\x94\xb8" },
	{ "ApplyFunction;", "\xe2\x81\xa1" }, { "Aring", "\xc3\x85" }, { "Aring;", "\xc3\x85" },
	{ "Ascr;", "\xf0\x9d\x92\x9c" }, { "Assign;", "\xe2\x89\x94" }, { "Atilde", "\xc3\x83" },
	{ "Atilde;", "\xc3\x83" }, { "Auml", "\xc3\x84" }, { "Auml;", "\xc3\x84" },
	{ "Backslash;", "\xe2\x88\x96" }, { "Barv;", "\xe2\xab\xa7" },
	{ "Barwed;", "\xe2\x8c\x86" }, { "Bcy;", "\xd0\x91" }, { "Because;", "\xe2\x88\xb5" },
	{ "Bernoullis;", "\xe2\x84\xac" }, { "Beta;", "\xce\x92" }, { "Bfr;", "\xf0\x9d\x94\x85" },
	{ "Bopf;", "\xf0\x9d\x94\xb9" }, { "Breve;", "\xcb\x98" }, { "Bscr;", "\xe2\x84\xac" },
	{ "Bumpeq;", "\xe2\x89\x8e" }, { "CHcy;", "\xd0\xa7" }, { "COPY", "\xc2\xa9" },
	{ "COPY;", "\xc2\xa9" }, { "Cacute;", "\xc4\x86" }, { "Cap;", "\xe2\x8b\x92" },
	{ "CapitalDifferentialD;", "\xe2\x85\x85" }, { "Cayleys;", "\xe2\x84\xad" },
	{ "Ccaron;", "\xc4\x8c" }, { "Ccedil", "\xc3\x87" }, { "Ccedil;", "\xc3\x87" },
	{ "Ccirc;", "\xc4\x88" }, { "Cconint;", "\xe2\x88\xb0" }, { "Cdot;", "\xc4\x8a" },
	{ "Cedilla;", "\xc2\xb8" }, { "CenterDot;", "\xc2\xb7" }, { "Cfr;", "\xe2\x84\xad" },
	{ "Chi;", "\xce\xa7" }, { "CircleDot;", "\xe2\x8a\x99" },
	{ "CircleMinus;", "\xe2\x8a\x96" }, { "CirclePlus;", "\xe2\x8a\x95" },
	{ "CircleTimes;", "\xe2\x8a\x97" }, { "ClockwiseContourIntegral;", "\xe2\x88\xb2" },
	{ "CloseCurlyDoubleQuote;", "\xe2\x80\x9d" }, { "CloseCurlyQuote;", "\xe2\x80\x99" },
	{ "Colon;", "\xe2\x88\xb7" }, { "Colone;", "\xe2\xa9\xb4" },
	{ "Congruent;", "\xe2\x89\xa1" }, { "Conint;", "\xe2\x88\xaf" },
	{ "ContourIntegral;", "\xe2\x88\xae" }, { "Copf;", "\xe2\x84\x82" },
	{ "Coproduct;", "\xe2\x88\x90" }, { "CounterClockwiseContourIntegral;", "\xe2\x88\xb3" },
	{ "Cross;", "\xe2\xa8\xaf" }, { "Cscr;", "\xf0\x9d\x92\x9e" }, { "Cup;", "\xe2\x8b\x93" },
	{ "CupCap;", "\xe2\x89\x8d" }, { "DD;", "\xe2\x85\x85" }, { "DDotrahd;", "\xe2\xa4\x91" },
	{ "DJcy;", "\xd0\x82" }, { "DScy;", "\xd0\x85" }, { "DZcy;", "\xd0\x8f" },
	{ "Dagger;", "\xe2\x80\xa1" }, { "Darr;", "\xe2\x86\xa1" }, { "Dashv;", "\xe2\xab\xa4" },
	{ "Dcaron;", "\xc4\x8e" }, { "Dcy;", "\xd0\x94" }, { "Del;", "\xe2\x88\x87" },
	{ "Delta;", "\xce\x94" }, { "Dfr;", "\xf0\x9d\x94\x87" },
	{ "DiacriticalAcute;", "\xc2\xb4" }, { "DiacriticalDot;", "\xcb\x99" },
	{ "DiacriticalDoubleAcute;", "\xcb\x9d" }, { "DiacriticalGrave;", "\x60" },
	{ "DiacriticalTilde;", "\xcb\x9c" }, { "Diamond;", "\xe2\x8b\x84" },
	{ "DifferentialD;", "\xe2\x85\x86" }, { "Dopf;", "\xf0\x9d\x94\xbb" },
	{ "Dot;", "\xc2\xa8" }, { "DotDot;", "\xe2\x83\x9c" }, { "DotEqual;", "\xe2\x89\x90" },
	{ "DoubleContourIntegral;", "\xe2\x88\xaf" }, { "DoubleDot;", "\xc2\xa8" },
	{ "DoubleDownArrow;", "\xe2\x87\x93" }, { "DoubleLeftArrow;", "\xe2\x87\x90" },
	{ "DoubleLeftRightArrow;", "\xe2\x87\x94" }, { "DoubleLeftTee;", "\xe2\xab\xa4" },
	{ "DoubleLongLeftArrow;", "\xe2\x9f\xb8" },
	{ "DoubleLongLeftRightArrow;", "\xe2\x9f\xba" },
	{ "DoubleLongRightArrow;", "\xe2\x9f\xb9" }, { "DoubleRightArrow;", "\xe2\x87\x92" },
	{ "DoubleRightTee;", "\xe2\x8a\xa8" }, { "DoubleUpArrow;", "\xe2\x87\x91" },
	{ "DoubleUpDownArrow;", "\xe2\x87\x95" }, { "DoubleVerticalBar;", "\xe2\x88\xa5" },
	{ "DownArrow;", "\xe2\x86\x93" }, { "DownArrowBar;", "\xe2\xa4\x93" },
	{ "DownArrowUpArrow;", "\xe2\x87\xb5" }, { "DownBreve;", "\xcc\x91" },
	{ "DownLeftRightVector;", "\xe2\xa5\x90" }, { "DownLeftTeeVector;", "\xe2\xa5\x9e" },
	{ "DownLeftVector;", "\xe2\x86\xbd" }, { "DownLeftVectorBar;", "\xe2\xa5\x96" },
	{ "DownRightTeeVector;", "\xe2\xa5\x9f" }, { "DownRightVector;", "\xe2\x87\x81" },
	{ "DownRightVectorBar;", "\xe2\xa5\x97" }, { "DownTee;", "\xe2\x8a\xa4" },
	{ "DownTeeArrow;", "\xe2\x86\xa7" }, { "Downarrow;", "\xe2\x87\x93" },
	{ "Dscr;", "\xf0\x9d\x92\x9f" }, { "Dstrok;", "\xc4\x90" }, { "ENG;", "\xc5\x8a" },
	{ "ETH", "\xc3\x90" }, { "ETH;", "\xc3\x90" }, { "Eacute", "\xc3\x89" },
	{ "Eacute;", "\xc3\x89" }, { "Ecaron;", "\xc4\x9a" }, { "Ecirc", "\xc3\x8a" },
	{ "Ecirc;", "\xc3\x8a" }, { "Ecy;", "\xd0\xad" }, { "Edot;", "\xc4\x96" },
	{ "Efr;", "\xf0\x9d\x94\x88" }, { "Egrave", "\xc3\x88" }, { "Egrave;", "\xc3\x88" },
	{ "Element;", "\xe2\x88\x88" }, { "Emacr;", "\xc4\x92" },
	{ "EmptySmallSquare;", "\xe2\x97\xbb" }, { "EmptyVerySmallSquare;", "\xe2\x96\xab" },
	{ "Eogon;", "\xc4\x98" }, { "Eopf;", "\xf0\x9d\x94\xbc" }, { "Epsilon;", "\xce\x95" },
	{ "Equal;", "\xe2\xa9\xb5" }, { "EqualTilde;", "\xe2\x89\x82" },
	{ "Equilibrium;", "\xe2\x87\x8c" }, { "Escr;", "\xe2\x84\xb0" },
	{ "Esim;", "\xe2\xa9\xb3" }, { "Eta;", "\xce\x97" }, { "Euml", "\xc3\x8b" },
	{ "Euml;", "\xc3\x8b" }, { "Exists;", "\xe2\x88\x83" },
	{ "ExponentialE;", "\xe2\x85\x87" }, { "Fcy;", "\xd0\xa4" },
	{ "Ffr;", "\xf0\x9d\x94\x89" }, { "FilledSmallSquare;", "\xe2\x97\xbc" },
	{ "FilledVerySmallSquare;", "\xe2\x96\xaa" }, { "Fopf;", "\xf0\x9d\x94\xbd" },
	{ "ForAll;", "\xe2\x88\x80" }, { "Fouriertrf;", "\xe2\x84\xb1" },
	{ "Fscr;", "\xe2\x84\xb1" }, { "GJcy;", "\xd0\x83" }, { "GT", "\x3e" }, { "GT;", "\x3e" },
	{ "Gamma;", "\xce\x93" }, { "Gammad;", "\xcf\x9c" }, { "Gbreve;", "\xc4\x9e" },
	{ "Gcedil;", "\xc4\xa2" }, { "Gcirc;", "\xc4\x9c" }, { "Gcy;", "\xd0\x93" },
	{ "Gdot;", "\xc4\xa0" }, { "Gfr;", "\xf0\x9d\x94\x8a" }, { "Gg;", "\xe2\x8b\x99" },
	{ "Gopf;", "\xf0\x9d\x94\xbe" }, { "GreaterEqual;", "\xe2\x89\xa5" },
	{ "GreaterEqualLess;", "\xe2\x8b\x9b" }, { "GreaterFullEqual;", "\xe2\x89\xa7" },
	{ "GreaterGreater;", "\xe2\xaa\xa2" }, { "GreaterLess;", "\xe2\x89\xb7" },
	{ "GreaterSlantEqual;", "\xe2\xa9\xbe" }, { "GreaterTilde;", "\xe2\x89\xb3" },
	{ "Gscr;", "\xf0\x9d\x92\xa2" }, { "Gt;", "\xe2\x89\xab" }, { "HARDcy;", "\xd0\xaa" },
	{ "Hacek;", "\xcb\x87" }, { "Hat;", "\x5e" }, { "Hcirc;", "\xc4\xa4" },
	{ "Hfr;", "\xe2\x84\x8c" }, { "HilbertSpace;", "\xe2\x84\x8b" },
	{ "Hopf;", "\xe2\x84\x8d" }, { "HorizontalLine;", "\xe2\x94\x80" },
	{ "Hscr;", "\xe2\x84\x8b" }, { "Hstrok;", "\xc4\xa6" },
	{ "HumpDownHump;", "\xe2\x89\x8e" }, { "HumpEqual;", "\xe2\x89\x8f" },
	{ "IEcy;", "\xd0\x95" }, { "IJlig;", "\xc4\xb2" }, { "IOcy;", "\xd0\x81" },
	{ "Iacute", "\xc3\x8d" }, { "Iacute;", "\xc3\x8d" }, { "Icirc", "\xc3\x8e" },
	{ "Icirc;", "\xc3\x8e" }, { "Icy;", "\xd0\x98" }, { "Idot;", "\xc4\xb0" },
	{ "Ifr;", "\xe2\x84\x91" }, { "Igrave", "\xc3\x8c" }, { "Igrave;", "\xc3\x8c" },
	{ "Im;", "\xe2\x84\x91" }, { "Imacr;", "\xc4\xaa" }, { "ImaginaryI;", "\xe2\x85\x88" },
	{ "Implies;", "\xe2\x87\x92" }, { "Int;", "\xe2\x88\xac" },
	{ "Integral;", "\xe2\x88\xab" }, { "Intersection;", "\xe2\x8b\x82" },
	{ "InvisibleComma;", "\xe2\x81\xa3" }, { "InvisibleTimes;", "\xe2\x81\xa2" },
	{ "Iogon;", "\xc4\xae" }, { "Iopf;", "\xf0\x9d\x95\x80" }, { "Iota;", "\xce\x99" },
	{ "Iscr;", "\xe2\x84\x90" }, { "Itilde;", "\xc4\xa8" }, { "Iukcy;", "\xd0\x86" },
	{ "Iuml", "\xc3\x8f" }, { "Iuml;", "\xc3\x8f" }, { "Jcirc;", "\xc4\xb4" },
	{ "Jcy;", "\xd0\x99" }, { "Jfr;", "\xf0\x9d\x94\x8d" }, { "Jopf;", "\xf0\x9d\x95\x81" },
	{ "Jscr;", "\xf0\x9d\x92\xa5" }, { "Jsercy;", "\xd0\x88" }, { "Jukcy;", "\xd0\x84" },
	{ "KHcy;", "\xd0\xa5" }, { "KJcy;", "\xd0\x8c" }, { "Kappa;", "\xce\x9a" },
	{ "Kcedil;", "\xc4\xb6" }, { "Kcy;", "\xd0\x9a" }, { "Kfr;", "\xf0\x9d\x94\x8e" },
	{ "Kopf;", "\xf0\x9d\x95\x82" }, { "Kscr;", "\xf0\x9d\x92\xa6" }, { "LJcy;", "\xd0\x89" },
	{ "LT", "\x3c" }, { "LT;", "\x3c" }, { "Lacute;", "\xc4\xb9" }, { "Lambda;", "\xce\x9b" },
	{ "Lang;", "\xe2\x9f\xaa" }, { "Laplacetrf;", "\xe2\x84\x92" },
	{ "Larr;", "\xe2\x86\x9e" }, { "Lcaron;", "\xc4\xbd" }, { "Lcedil;", "\xc4\xbb" },
	{ "Lcy;", "\xd0\x9b" }, { "LeftAngleBracket;", "\xe2\x9f\xa8" },
	{ "LeftArrow;", "\xe2\x86\x90" }, { "LeftArrowBar;", "\xe2\x87\xa4" },
	{ "LeftArrowRightArrow;", "\xe2\x87\x86" }, { "LeftCeiling;", "\xe2\x8c\x88" },
	{ "LeftDoubleBracket;", "\xe2\x9f\xa6" }, { "LeftDownTeeVector;", "\xe2\xa5\xa1" },
	{ "LeftDownVector;", "\xe2\x87\x83" }, { "LeftDownVectorBar;", "\xe2\xa5\x99" },
	{ "LeftFloor;", "\xe2\x8c\x8a" }, { "LeftRightArrow;", "\xe2\x86\x94" },
	{ "LeftRightVector;", "\xe2\xa5\x8e" }, { "LeftTee;", "\xe2\x8a\xa3" },
	{ "LeftTeeArrow;", "\xe2\x86\xa4" }, { "LeftTeeVector;", "\xe2\xa5\x9a" },
	{ "LeftTriangle;", "\xe2\x8a\xb2" }, { "LeftTriangleBar;", "\xe2\xa7\x8f" },
	{ "LeftTriangleEqual;", "\xe2\x8a\xb4" }, { "LeftUpDownVector;", "\xe2\xa5\x91" },
	{ "LeftUpTeeVector;", "\xe2\xa5\xa0" }, { "LeftUpVector;", "\xe2\x86\xbf" },
	{ "LeftUpVectorBar;", "\xe2\xa5\x98" }, { "LeftVector;", "\xe2\x86\xbc" },
	{ "LeftVectorBar;", "\xe2\xa5\x92" }, { "Leftarrow;", "\xe2\x87\x90" },
	{ "Leftrightarrow;", "\xe2\x87\x94" }, { "LessEqualGreater;", "\xe2\x8b\x9a" },
	{ "LessFullEqual;", "\xe2\x89\xa6" }, { "LessGreater;", "\xe2\x89\xb6" },
	{ "LessLess;", "\xe2\xaa\xa1" }, { "LessSlantEqual;", "\xe2\xa9\xbd" },
	{ "LessTilde;", "\xe2\x89\xb2" }, { "Lfr;", "\xf0\x9d\x94\x8f" },
	{ "Ll;", "\xe2\x8b\x98" }, { "Lleftarrow;", "\xe2\x87\x9a" }, { "Lmidot;", "\xc4\xbf" },
	{ "LongLeftArrow;", "\xe2\x9f\xb5" }, { "LongLeftRightArrow;", "\xe2\x9f\xb7" },
	{ "LongRightArrow;", "\xe2\x9f\xb6" }, { "Longleftarrow;", "\xe2\x9f\xb8" },
	{ "Longleftrightarrow;", "\xe2\x9f\xba" }, { "Longrightarrow;", "\xe2\x9f\xb9" },
	{ "Lopf;", "\xf0\x9d\x95\x83" }, { "LowerLeftArrow;", "\xe2\x86\x99" },
	{ "LowerRightArrow;", "\xe2\x86\x98" }, { "Lscr;", "\xe2\x84\x92" },
	{ "Lsh;", "\xe2\x86\xb0" }, { "Lstrok;", "\xc5\x81" }, { "Lt;", "\xe2\x89\xaa" },
	{ "Map;", "\xe2\xa4\x85" }, { "Mcy;", "\xd0\x9c" }, { "MediumSpace;", "\xe2\x81\x9f" },
	{ "Mellintrf;", "\xe2\x84\xb3" }, { "Mfr;", "\xf0\x9d\x94\x90" },
	{ "MinusPlus;", "\xe2\x88\x93" }, { "Mopf;", "\xf0\x9d\x95\x84" },
	{ "Mscr;", "\xe2\x84\xb3" }, { "Mu;", "\xce\x9c" }, { "NJcy;", "\xd0\x8a" },
	{ "Nacute;", "\xc5\x83" }, { "Ncaron;", "\xc5\x87" }, { "Ncedil;", "\xc5\x85" },
	{ "Ncy;", "\xd0\x9d" }, { "NegativeMediumSpace;", "\xe2\x80\x8b" },
	{ "NegativeThickSpace;", "\xe2\x80\x8b" }, { "NegativeThinSpace;", "\xe2\x80\x8b" },
	{ "NegativeVeryThinSpace;", "\xe2\x80\x8b" }, { "NestedGreaterGreater;", "\xe2\x89\xab" },
	{ "NestedLessLess;", "\xe2\x89\xaa" }, { "NewLine;", "\x0a" },
	{ "Nfr;", "\xf0\x9d\x94\x91" }, { "NoBreak;", "\xe2\x81\xa0" },
	{ "NonBreakingSpace;", "\xc2\xa0" }, { "Nopf;", "\xe2\x84\x95" },
	{ "Not;", "\xe2\xab\xac" }, { "NotCongruent;", "\xe2\x89\xa2" },
	{ "NotCupCap;", "\xe2\x89\xad" }, { "NotDoubleVerticalBar;", "\xe2\x88\xa6" },
	{ "NotElement;", "\xe2\x88\x89" }, { "NotEqual;", "\xe2\x89\xa0" },
	{ "NotEqualTilde;", "\xe2\x89\x82\xcc\xb8" }, { "NotExists;", "\xe2\x88\x84" },
	{ "NotGreater;", "\xe2\x89\xaf" }, { "NotGreaterEqual;", "\xe2\x89\xb1" },
	{ "NotGreaterFullEqual;", "\xe2\x89\xa7\xcc\xb8" },
	{ "NotGreaterGreater;", "\xe2\x89\xab\xcc\xb8" }, { "NotGreaterLess;", "\xe2\x89\xb9" },
	{ "NotGreaterSlantEqual;", "\xe2\xa9\xbe\xcc\xb8" },
	{ "NotGreaterTilde;", "\xe2\x89\xb5" }, { "NotHumpDownHump;", "\xe2\x89\x8e\xcc\xb8" },
	{ "NotHumpEqual;", "\xe2\x89\x8f\xcc\xb8" }, { "NotLeftTriangle;", "\xe2\x8b\xaa" },
	{ "NotLeftTriangleBar;", "\xe2\xa7\x8f\xcc\xb8" },
	{ "NotLeftTriangleEqual;", "\xe2\x8b\xac" }, { "NotLess;", "\xe2\x89\xae" },
	{ "NotLessEqual;", "\xe2\x89\xb0" }, { "NotLessGreater;", "\xe2\x89\xb8" },
	{ "NotLessLess;", "\xe2\x89\xaa\xcc\xb8" },
	{ "NotLessSlantEqual;", "\xe2\xa9\xbd\xcc\xb8" }, { "NotLessTilde;", "\xe2\x89\xb4" },
	{ "NotNestedGreaterGreater;", "\xe2\xaa\xa2\xcc\xb8" },
	{ "NotNestedLessLess;", "\xe2\xaa\xa1\xcc\xb8" }, { "NotPrecedes;", "\xe2\x8a\x80" },
	{ "NotPrecedesEqual;", "\xe2\xaa\xaf\xcc\xb8" },
	{ "NotPrecedesSlantEqual;", "\xe2\x8b\xa0" }, { "NotReverseElement;", "\xe2\x88\x8c" },
	{ "NotRightTriangle;", "\xe2\x8b\xab" },
	{ "NotRightTriangleBar;", "\xe2\xa7\x90\xcc\xb8" },
	{ "NotRightTriangleEqual;", "\xe2\x8b\xad" },
	{ "NotSquareSubset;", "\xe2\x8a\x8f\xcc\xb8" },
	{ "NotSquareSubsetEqual;", "\xe2\x8b\xa2" },
	{ "NotSquareSuperset;", "\xe2\x8a\x90\xcc\xb8" },
	{ "NotSquareSupersetEqual;", "\xe2\x8b\xa3" },
	{ "NotSubset;", "\xe2\x8a\x82\xe2\x83\x92" }, { "NotSubsetEqual;", "\xe2\x8a\x88" },
	{ "NotSucceeds;", "\xe2\x8a\x81" }, { "NotSucceedsEqual;", "\xe2\xaa\xb0\xcc\xb8" },
	{ "NotSucceedsSlantEqual;", "\xe2\x8b\xa1" },
	{ "NotSucceedsTilde;", "\xe2\x89\xbf\xcc\xb8" },
	{ "NotSuperset;", "\xe2\x8a\x83\xe2\x83\x92" }, { "NotSupersetEqual;", "\xe2\x8a\x89" },
	{ "NotTilde;", "\xe2\x89\x81" }, { "NotTildeEqual;", "\xe2\x89\x84" },
	{ "NotTildeFullEqual;", "\xe2\x89\x87" }, { "NotTildeTilde;", "\xe2\x89\x89" },
	{ "NotVerticalBar;", "\xe2\x88\xa4" }, { "Nscr;", "\xf0\x9d\x92\xa9" },
	{ "Ntilde", "\xc3\x91" }, { "Ntilde;", "\xc3\x91" }, { "Nu;", "\xce\x9d" },
	{ "OElig;", "\xc5\x92" }, { "Oacute", "\xc3\x93" }, { "Oacute;", "\xc3\x93" },
	{ "Ocirc", "\xc3\x94" }, { "Ocirc;", "\xc3\x94" }, { "Ocy;", "\xd0\x9e" },
	{ "Odblac;", "\xc5\x90" }, { "Ofr;", "\xf0\x9d\x94\x92" }, { "Ograve", "\xc3\x92" },
	{ "Ograve;", "\xc3\x92" }, { "Omacr;", "\xc5\x8c" }, { "Omega;", "\xce\xa9" },
	{ "Omicron;", "\xce\x9f" }, { "Oopf;", "\xf0\x9d\x95\x86" },
	{ "OpenCurlyDoubleQuote;", "\xe2\x80\x9c" }, { "OpenCurlyQuote;", "\xe2\x80\x98" },
	{ "Or;", "\xe2\xa9\x94" }, { "Oscr;", "\xf0\x9d\x92\xaa" }, { "Oslash", "\xc3\x98" },
	{ "Oslash;", "\xc3\x98" }, { "Otilde", "\xc3\x95" }, { "Otilde;", "\xc3\x95" },
	{ "Otimes;", "\xe2\xa8\xb7" }, { "Ouml", "\xc3\x96" }, { "Ouml;", "\xc3\x96" },
	{ "OverBar;", "\xe2\x80\xbe" }, { "OverBrace;", "\xe2\x8f\x9e" },
	{ "OverBracket;", "\xe2\x8e\xb4" }, { "OverParenthesis;", "\xe2\x8f\x9c" },
	{ "PartialD;", "\xe2\x88\x82" }, { "Pcy;", "\xd0\x9f" }, { "Pfr;", "\xf0\x9d\x94\x93" },
	{ "Phi;", "\xce\xa6" }, { "Pi;", "\xce\xa0" }, { "PlusMinus;", "\xc2\xb1" },
	{ "Poincareplane;", "\xe2\x84\x8c" }, { "Popf;", "\xe2\x84\x99" },
	{ "Pr;", "\xe2\xaa\xbb" }, { "Precedes;", "\xe2\x89\xba" },
	{ "PrecedesEqual;", "\xe2\xaa\xaf" }, { "PrecedesSlantEqual;", "\xe2\x89\xbc" },
	{ "PrecedesTilde;", "\xe2\x89\xbe" }, { "Prime;", "\xe2\x80\xb3" },
	{ "Product;", "\xe2\x88\x8f" }, { "Proportion;", "\xe2\x88\xb7" },
	{ "Proportional;", "\xe2\x88\x9d" }, { "Pscr;", "\xf0\x9d\x92\xab" },
	{ "Psi;", "\xce\xa8" }, { "QUOT", "\x22" }, { "QUOT;", "\x22" },
	{ "Qfr;", "\xf0\x9d\x94\x94" }, { "Qopf;", "\xe2\x84\x9a" },
	{ "Qscr;", "\xf0\x9d\x92\xac" }, { "RBarr;", "\xe2\xa4\x90" }, { "REG", "\xc2\xae" },
	{ "REG;", "\xc2\xae" }, { "Racute;", "\xc5\x94" }, { "Rang;", "\xe2\x9f\xab" },
	{ "Rarr;", "\xe2\x86\xa0" }, { "Rarrtl;", "\xe2\xa4\x96" }, { "Rcaron;", "\xc5\x98" },
	{ "Rcedil;", "\xc5\x96" }, { "Rcy;", "\xd0\xa0" }, { "Re;", "\xe2\x84\x9c" },
	{ "ReverseElement;", "\xe2\x88\x8b" }, { "ReverseEquilibrium;", "\xe2\x87\x8b" },
	{ "ReverseUpEquilibrium;", "\xe2\xa5\xaf" }, { "Rfr;", "\xe2\x84\x9c" },
	{ "Rho;", "\xce\xa1" }, { "RightAngleBracket;", "\xe2\x9f\xa9" },
	{ "RightArrow;", "\xe2\x86\x92" }, { "RightArrowBar;", "\xe2\x87\xa5" },
	{ "RightArrowLeftArrow;", "\xe2\x87\x84" }, { "RightCeiling;", "\xe2\x8c\x89" },
	{ "RightDoubleBracket;", "\xe2\x9f\xa7" }, { "RightDownTeeVector;", "\xe2\xa5\x9d" },
	{ "RightDownVector;", "\xe2\x87\x82" }, { "RightDownVectorBar;", "\xe2\xa5\x95" },
	{ "RightFloor;", "\xe2\x8c\x8b" }, { "RightTee;", "\xe2\x8a\xa2" },
	{ "RightTeeArrow;", "\xe2\x86\xa6" }, { "RightTeeVector;", "\xe2\xa5\x9b" },
	{ "RightTriangle;", "\xe2\x8a\xb3" }, { "RightTriangleBar;", "\xe2\xa7\x90" },
	{ "RightTriangleEqual;", "\xe2\x8a\xb5" }, { "RightUpDownVector;", "\xe2\xa5\x8f" },
	{ "RightUpTeeVector;", "\xe2\xa5\x9c" }, { "RightUpVector;", "\xe2\x86\xbe" },
	{ "RightUpVectorBar;", "\xe2\xa5\x94" }, { "RightVector;", "\xe2\x87\x80" },
	{ "RightVectorBar;", "\xe2\xa5\x93" }, { "Rightarrow;", "\xe2\x87\x92" },
	{ "Ropf;", "\xe2\x84\x9d" }, { "RoundImplies;", "\xe2\xa5\xb0" },
	{ "Rrightarrow;", "\xe2\x87\x9b" }, { "Rscr;", "\xe2\x84\x9b" },
	{ "Rsh;", "\xe2\x86\xb1" }, { "RuleDelayed;", "\xe2\xa7\xb4" }, { "SHCHcy;", "\xd0\xa9" },
	{ "SHcy;", "\xd0\xa8" }, { "SOFTcy;", "\xd0\xac" }, { "Sacute;", "\xc5\x9a" },
	{ "Sc;", "\xe2\xaa\xbc" }, { "Scaron;", "\xc5\xa0" }, { "Scedil;", "\xc5\x9e" },
	{ "Scirc;", "\xc5\x9c" }, { "Scy;", "\xd0\xa1" }, { "Sfr;", "\xf0\x9d\x94\x96" },
	{ "ShortDownArrow;", "\xe2\x86\x93" }, { "ShortLeftArrow;", "\xe2\x86\x90" },
	{ "ShortRightArrow;", "\xe2\x86\x92" }, { "ShortUpArrow;", "\xe2\x86\x91" },
	{ "Sigma;", "\xce\xa3" }, { "SmallCircle;", "\xe2\x88\x98" },
	{ "Sopf;", "\xf0\x9d\x95\x8a" }, { "Sqrt;", "\xe2\x88\x9a" },
	{ "Square;", "\xe2\x96\xa1" }, { "SquareIntersection;", "\xe2\x8a\x93" },
	{ "SquareSubset;", "\xe2\x8a\x8f" }, { "SquareSubsetEqual;", "\xe2\x8a\x91" },
	{ "SquareSuperset;", "\xe2\x8a\x90" }, { "SquareSupersetEqual;", "\xe2\x8a\x92" },
	{ "SquareUnion;", "\xe2\x8a\x94" }, { "Sscr;", "\xf0\x9d\x92\xae" },
	{ "Star;", "\xe2\x8b\x86" }, { "Sub;", "\xe2\x8b\x90" }, { "Subset;", "\xe2\x8b\x90" },
	{ "SubsetEqual;", "\xe2\x8a\x86" }, { "Succeeds;", "\xe2\x89\xbb" },
	{ "SucceedsEqual;", "\xe2\xaa\xb0" }, { "SucceedsSlantEqual;", "\xe2\x89\xbd" },
	{ "SucceedsTilde;", "\xe2\x89\xbf" }, { "SuchThat;", "\xe2\x88\x8b" },
	{ "Sum;", "\xe2\x88\x91" }, { "Sup;", "\xe2\x8b\x91" }, { "Superset;", "\xe2\x8a\x83" },
	{ "SupersetEqual;", "\xe2\x8a\x87" }, { "Supset;", "\xe2\x8b\x91" },
	{ "THORN", "\xc3\x9e" }, { "THORN;", "\xc3\x9e" }, { "TRADE;", "\xe2\x84\xa2" },
	{ "TSHcy;", "\xd0\x8b" }, { "TScy;", "\xd0\xa6" }, { "Tab;", "\x09" },
	{ "Tau;", "\xce\xa4" }, { "Tcaron;", "\xc5\xa4" }, { "Tcedil;", "\xc5\xa2" },
	{ "Tcy;", "\xd0\xa2" }, { "Tfr;", "\xf0\x9d\x94\x97" }, { "Therefore;", "\xe2\x88\xb4" },
	{ "Theta;", "\xce\x98" }, { "ThickSpace;", "\xe2\x81\x9f\xe2\x80\x8a" },
	{ "ThinSpace;", "\xe2\x80\x89" }, { "Tilde;", "\xe2\x88\xbc" },
	{ "TildeEqual;", "\xe2\x89\x83" }, { "TildeFullEqual;", "\xe2\x89\x85" },
	{ "TildeTilde;", "\xe2\x89\x88" }, { "Topf;", "\xf0\x9d\x95\x8b" },
	{ "TripleDot;", "\xe2\x83\x9b" }, { "Tscr;", "\xf0\x9d\x92\xaf" },
	{ "Tstrok;", "\xc5\xa6" }, { "Uacute", "\xc3\x9a" }, { "Uacute;", "\xc3\x9a" },
	{ "Uarr;", "\xe2\x86\x9f" }, { "Uarrocir;", "\xe2\xa5\x89" }, { "Ubrcy;", "\xd0\x8e" },
	{ "Ubreve;", "\xc5\xac" }, { "Ucirc", "\xc3\x9b" }, { "Ucirc;", "\xc3\x9b" },
	{ "Ucy;", "\xd0\xa3" }, { "Udblac;", "\xc5\xb0" }, { "Ufr;", "\xf0\x9d\x94\x98" },
	{ "Ugrave", "\xc3\x99" }, { "Ugrave;", "\xc3\x99" }, { "Umacr;", "\xc5\xaa" },
	{ "UnderBar;", "\x5f" }, { "UnderBrace;", "\xe2\x8f\x9f" },
	{ "UnderBracket;", "\xe2\x8e\xb5" }, { "UnderParenthesis;", "\xe2\x8f\x9d" },
	{ "Union;", "\xe2\x8b\x83" }, { "UnionPlus;", "\xe2\x8a\x8e" }, { "Uogon;", "\xc5\xb2" },
	{ "Uopf;", "\xf0\x9d\x95\x8c" }, { "UpArrow;", "\xe2\x86\x91" },
	{ "UpArrowBar;", "\xe2\xa4\x92" }, { "UpArrowDownArrow;", "\xe2\x87\x85" },
	{ "UpDownArrow;", "\xe2\x86\x95" }, { "UpEquilibrium;", "\xe2\xa5\xae" },
	{ "UpTee;", "\xe2\x8a\xa5" }, { "UpTeeArrow;", "\xe2\x86\xa5" },
	{ "Uparrow;", "\xe2\x87\x91" }, { "Updownarrow;", "\xe2\x87\x95" },
	{ "UpperLeftArrow;", "\xe2\x86\x96" }, { "UpperRightArrow;", "\xe2\x86\x97" },
	{ "Upsi;", "\xcf\x92" }, { "Upsilon;", "\xce\xa5" }, { "Uring;", "\xc5\xae" },
	{ "Uscr;", "\xf0\x9d\x92\xb0" }, { "Utilde;", "\xc5\xa8" }, { "Uuml", "\xc3\x9c" },
	{ "Uuml;", "\xc3\x9c" }, { "VDash;", "\xe2\x8a\xab" }, { "Vbar;", "\xe2\xab\xab" },
	{ "Vcy;", "\xd0\x92" }, { "Vdash;", "\xe2\x8a\xa9" }, { "Vdashl;", "\xe2\xab\xa6" },
	{ "Vee;", "\xe2\x8b\x81" }, { "Verbar;", "\xe2\x80\x96" }, { "Vert;", "\xe2\x80\x96" },
	{ "VerticalBar;", "\xe2\x88\xa3" }, { "VerticalLine;", "\x7c" },
	{ "VerticalSeparator;", "\xe2\x9d\x98" }, { "VerticalTilde;", "\xe2\x89\x80" },
	{ "VeryThinSpace;", "\xe2\x80\x8a" }, { "Vfr;", "\xf0\x9d\x94\x99" },
	{ "Vopf;", "\xf0\x9d\x95\x8d" }, { "Vscr;", "\xf0\x9d\x92\xb1" },
	{ "Vvdash;", "\xe2\x8a\xaa" }, { "Wcirc;", "\xc5\xb4" }, { "Wedge;", "\xe2\x8b\x80" },
	{ "Wfr;", "\xf0\x9d\x94\x9a" }, { "Wopf;", "\xf0\x9d\x95\x8e" },
	{ "Wscr;", "\xf0\x9d\x92\xb2" }, { "Xfr;", "\xf0\x9d\x94\x9b" }, { "Xi;", "\xce\x9e" },
	{ "Xopf;", "\xf0\x9d\x95\x8f" }, { "Xscr;", "\xf0\x9d\x92\xb3" }, { "YAcy;", "\xd0\xaf" },
	{ "YIcy;", "\xd0\x87" }, { "YUcy;", "\xd0\xae" }, { "Yacute", "\xc3\x9d" },
	{ "Yacute;", "\xc3\x9d" }, { "Ycirc;", "\xc5\xb6" }, { "Ycy;", "\xd0\xab" },
	{ "Yfr;", "\xf0\x9d\x94\x9c" }, { "Yopf;", "\xf0\x9d\x95\x90" },
	{ "Yscr;", "\xf0\x9d\x92\xb4" }, { "Yuml;", "\xc5\xb8" }, { "ZHcy;", "\xd0\x96" },
	{ "Zacute;", "\xc5\xb9" }, { "Zcaron;", "\xc5\xbd" }, { "Zcy;", "\xd0\x97" },
	{ "Zdot;", "\xc5\xbb" }, { "ZeroWidthSpace;", "\xe2\x80\x8b" }, { "Zeta;", "\xce\x96" },
	{ "Zfr;", "\xe2\x84\xa8" }, { "Zopf;", "\xe2\x84\xa4" }, { "Zscr;", "\xf0\x9d\x92\xb5" },
	{ "aacute", "\xc3\xa1" }, { "aacute;", "\xc3\xa1" }, { "abreve;", "\xc4\x83" },
	{ "ac;", "\xe2\x88\xbe" }, { "acE;", "\xe2\x88\xbe\xcc\xb3" }, { "acd;", "\xe2\x88\xbf" },
	{ "acirc", "\xc3\xa2" }, { "acirc;", "\xc3\xa2" }, { "acute", "\xc2\xb4" },
	{ "acute;", "\xc2\xb4" }, { "acy;", "\xd0\xb0" }, { "aelig", "\xc3\xa6" },
	{ "aelig;", "\xc3\xa6" }, { "af;", "\xe2\x81\xa1" }, { "afr;", "\xf0\x9d\x94\x9e" },
	{ "agrave", "\xc3\xa0" }, { "agrave;", "\xc3\xa0" }, { "alefsym;", "\xe2\x84\xb5" },
	{ "aleph;", "\xe2\x84\xb5" }, { "alpha;", "\xce\xb1" }, { "amacr;", "\xc4\x81" },
	{ "amalg;", "\xe2\xa8\xbf" }, { "amp", "\x26" }, { "amp;", "\x26" },
	{ "and;", "\xe2\x88\xa7" }, { "andand;", "\xe2\xa9\x95" }, { "andd;", "\xe2\xa9\x9c" },
	{ "andslope;", "\xe2\xa9\x98" }, { "andv;", "\xe2\xa9\x9a" }, { "ang;", "\xe2\x88\xa0" },
	{ "ange;", "\xe2\xa6\xa4" }, { "angle;", "\xe2\x88\xa0" }, { "angmsd;", "\xe2\x88\xa1" },
	{ "angmsdaa;", "\xe2\xa6\xa8" }, { "angmsdab;", "\xe2\xa6\xa9" },
	{ "angmsdac;", "\xe2\xa6\xaa" }, { "angmsdad;", "\xe2\xa6\xab" },
	{ "angmsdae;", "\xe2\xa6\xac" }, { "angmsdaf;", "\xe2\xa6\xad" },
	{ "angmsdag;", "\xe2\xa6\xae" }, { "angmsdah;", "\xe2\xa6\xaf" },
	{ "angrt;", "\xe2\x88\x9f" }, { "angrtvb;", "\xe2\x8a\xbe" },
	{ "angrtvbd;", "\xe2\xa6\x9d" }, { "angsph;", "\xe2\x88\xa2" }, { "angst;", "\xc3\x85" },
	{ "angzarr;", "\xe2\x8d\xbc" }, { "aogon;", "\xc4\x85" }, { "aopf;", "\xf0\x9d\x95\x92" },
	{ "ap;", "\xe2\x89\x88" }, { "apE;", "\xe2\xa9\xb0" }, { "apacir;", "\xe2\xa9\xaf" },
	{ "ape;", "\xe2\x89\x8a" }, { "apid;", "\xe2\x89\x8b" }, { "apos;", "\x27" },
	{ "approx;", "\xe2\x89\x88" }, { "approxeq;", "\xe2\x89\x8a" }, { "aring", "\xc3\xa5" },
	{ "aring;", "\xc3\xa5" }, { "ascr;", "\xf0\x9d\x92\xb6" }, { "ast;", "\x2a" },
	{ "asymp;", "\xe2\x89\x88" }, { "asympeq;", "\xe2\x89\x8d" }, { "atilde", "\xc3\xa3" },
	{ "atilde;", "\xc3\xa3" }, { "auml", "\xc3\xa4" }, { "auml;", "\xc3\xa4" },
	{ "awconint;", "\xe2\x88\xb3" }, { "awint;", "\xe2\xa8\x91" }, { "bNot;", "\xe2\xab\xad" },
	{ "backcong;", "\xe2\x89\x8c" }, { "backepsilon;", "\xcf\xb6" },
	{ "backprime;", "\xe2\x80\xb5" }, { "backsim;", "\xe2\x88\xbd" },
	{ "backsimeq;", "\xe2\x8b\x8d" }, { "barvee;", "\xe2\x8a\xbd" },
	{ "barwed;", "\xe2\x8c\x85" }, { "barwedge;", "\xe2\x8c\x85" },
	{ "bbrk;", "\xe2\x8e\xb5" }, { "bbrktbrk;", "\xe2\x8e\xb6" }, { "bcong;", "\xe2\x89\x8c" },
	{ "bcy;", "\xd0\xb1" }, { "bdquo;", "\xe2\x80\x9e" }, { "becaus;", "\xe2\x88\xb5" },
	{ "because;", "\xe2\x88\xb5" }, { "bemptyv;", "\xe2\xa6\xb0" }, { "bepsi;", "\xcf\xb6" },
	{ "bernou;", "\xe2\x84\xac" }, { "beta;", "\xce\xb2" }, { "beth;", "\xe2\x84\xb6" },
	{ "between;", "\xe2\x89\xac" }, { "bfr;", "\xf0\x9d\x94\x9f" },
	{ "bigcap;", "\xe2\x8b\x82" }, { "bigcirc;", "\xe2\x97\xaf" },
	{ "bigcup;", "\xe2\x8b\x83" }, { "bigodot;", "\xe2\xa8\x80" },
	{ "bigoplus;", "\xe2\xa8\x81" }, { "bigotimes;", "\xe2\xa8\x82" },
	{ "bigsqcup;", "\xe2\xa8\x86" }, { "bigstar;", "\xe2\x98\x85" },
	{ "bigtriangledown;", "\xe2\x96\xbd" }, { "bigtriangleup;", "\xe2\x96\xb3" },
	{ "biguplus;", "\xe2\xa8\x84" }, { "bigvee;", "\xe2\x8b\x81" },
	{ "bigwedge;", "\xe2\x8b\x80" }, { "bkarow;", "\xe2\xa4\x8d" },
	{ "blacklozenge;", "\xe2\xa7\xab" }, { "blacksquare;", "\xe2\x96\xaa" },
	{ "blacktriangle;", "\xe2\x96\xb4" }, { "blacktriangledown;", "\xe2\x96\xbe" },
	{ "blacktriangleleft;", "\xe2\x97\x82" }, { "blacktriangleright;", "\xe2\x96\xb8" },
	{ "blank;", "\xe2\x90\xa3" }, { "blk12;", "\xe2\x96\x92" }, { "blk14;", "\xe2\x96\x91" },
	{ "blk34;", "\xe2\x96\x93" }, { "block;", "\xe2\x96\x88" }, { "bne;", "\x3d\xe2\x83\xa5" },
	{ "bnequiv;", "\xe2\x89\xa1\xe2\x83\xa5" }, { "bnot;", "\xe2\x8c\x90" },
	{ "bopf;", "\xf0\x9d\x95\x93" }, { "bot;", "\xe2\x8a\xa5" }, { "bottom;", "\xe2\x8a\xa5" },
	{ "bowtie;", "\xe2\x8b\x88" }, { "boxDL;", "\xe2\x95\x97" }, { "boxDR;", "\xe2\x95\x94" },
	{ "boxDl;", "\xe2\x95\x96" }, { "boxDr;", "\xe2\x95\x93" }, { "boxH;", "\xe2\x95\x90" },
	{ "boxHD;", "\xe2\x95\xa6" }, { "boxHU;", "\xe2\x95\xa9" }, { "boxHd;", "\xe2\x95\xa4" },
	{ "boxHu;", "\xe2\x95\xa7" }, { "boxUL;", "\xe2\x95\x9d" }, { "boxUR;", "\xe2\x95\x9a" },
	{ "boxUl;", "\xe2\x95\x9c" }, { "boxUr;", "\xe2\x95\x99" }, { "boxV;", "\xe2\x95\x91" },
	{ "boxVH;", "\xe2\x95\xac" }, { "boxVL;", "\xe2\x95\xa3" }, { "boxVR;", "\xe2\x95\xa0" },
	{ "boxVh;", "\xe2\x95\xab" }, { "boxVl;", "\xe2\x95\xa2" }, { "boxVr;", "\xe2\x95\x9f" },
	{ "boxbox;", "\xe2\xa7\x89" }, { "boxdL;", "\xe2\x95\x95" }, { "boxdR;", "\xe2\x95\x92" },
	{ "boxdl;", "\xe2\x94\x90" }, { "boxdr;", "\xe2\x94\x8c" }, { "boxh;", "\xe2\x94\x80" },
	{ "boxhD;", "\xe2\x95\xa5" }, { "boxhU;", "\xe2\x95\xa8" }, { "boxhd;", "\xe2\x94\xac" },
	{ "boxhu;", "\xe2\x94\xb4" }, { "boxminus;", "\xe2\x8a\x9f" },
	{ "boxplus;", "\xe2\x8a\x9e" }, { "boxtimes;", "\xe2\x8a\xa0" },
	{ "boxuL;", "\xe2\x95\x9b" }, { "boxuR;", "\xe2\x95\x98" }, { "boxul;", "\xe2\x94\x98" },
	{ "boxur;", "\xe2\x94\x94" }, { "boxv;", "\xe2\x94\x82" }, { "boxvH;", "\xe2\x95\xaa" },
	{ "boxvL;", "\xe2\x95\xa1" }, { "boxvR;", "\xe2\x95\x9e" }, { "boxvh;", "\xe2\x94\xbc" },
	{ "boxvl;", "\xe2\x94\xa4" }, { "boxvr;", "\xe2\x94\x9c" }, { "bprime;", "\xe2\x80\xb5" },
	{ "breve;", "\xcb\x98" }, { "brvbar", "\xc2\xa6" }, { "brvbar;", "\xc2\xa6" },
	{ "bscr;", "\xf0\x9d\x92\xb7" }, { "bsemi;", "\xe2\x81\x8f" }, { "bsim;", "\xe2\x88\xbd" },
	{ "bsime;", "\xe2\x8b\x8d" }, { "bsol;", "\x5c" }, { "bsolb;", "\xe2\xa7\x85" },
	{ "bsolhsub;", "\xe2\x9f\x88" }, { "bull;", "\xe2\x80\xa2" },
	{ "bullet;", "\xe2\x80\xa2" }, { "bump;", "\xe2\x89\x8e" }, { "bumpE;", "\xe2\xaa\xae" },
	{ "bumpe;", "\xe2\x89\x8f" }, { "bumpeq;", "\xe2\x89\x8f" }, { "cacute;", "\xc4\x87" },
	{ "cap;", "\xe2\x88\xa9" }, { "capand;", "\xe2\xa9\x84" }, { "capbrcup;", "\xe2\xa9\x89" },
	{ "capcap;", "\xe2\xa9\x8b" }, { "capcup;", "\xe2\xa9\x87" },
	{ "capdot;", "\xe2\xa9\x80" }, { "caps;", "\xe2\x88\xa9\xef\xb8\x80" },
	{ "caret;", "\xe2\x81\x81" }, { "caron;", "\xcb\x87" }, { "ccaps;", "\xe2\xa9\x8d" },
	{ "ccaron;", "\xc4\x8d" }, { "ccedil", "\xc3\xa7" }, { "ccedil;", "\xc3\xa7" },
	{ "ccirc;", "\xc4\x89" }, { "ccups;", "\xe2\xa9\x8c" }, { "ccupssm;", "\xe2\xa9\x90" },
	{ "cdot;", "\xc4\x8b" }, { "cedil", "\xc2\xb8" }, { "cedil;", "\xc2\xb8" },
	{ "cemptyv;", "\xe2\xa6\xb2" }, { "cent", "\xc2\xa2" }, { "cent;", "\xc2\xa2" },
	{ "centerdot;", "\xc2\xb7" }, { "cfr;", "\xf0\x9d\x94\xa0" }, { "chcy;", "\xd1\x87" },
	{ "check;", "\xe2\x9c\x93" }, { "checkmark;", "\xe2\x9c\x93" }, { "chi;", "\xcf\x87" },
	{ "cir;", "\xe2\x97\x8b" }, { "cirE;", "\xe2\xa7\x83" }, { "circ;", "\xcb\x86" },
	{ "circeq;", "\xe2\x89\x97" }, { "circlearrowleft;", "\xe2\x86\xba" },
	{ "circlearrowright;", "\xe2\x86\xbb" }, { "circledR;", "\xc2\xae" },
	{ "circledS;", "\xe2\x93\x88" }, { "circledast;", "\xe2\x8a\x9b" },
	{ "circledcirc;", "\xe2\x8a\x9a" }, { "circleddash;", "\xe2\x8a\x9d" },
	{ "cire;", "\xe2\x89\x97" }, { "cirfnint;", "\xe2\xa8\x90" },
	{ "cirmid;", "\xe2\xab\xaf" }, { "cirscir;", "\xe2\xa7\x82" },
	{ "clubs;", "\xe2\x99\xa3" }, { "clubsuit;", "\xe2\x99\xa3" }, { "colon;", "\x3a" },
	{ "colone;", "\xe2\x89\x94" }, { "coloneq;", "\xe2\x89\x94" }, { "comma;", "\x2c" },
	{ "commat;", "\x40" }, { "comp;", "\xe2\x88\x81" }, { "compfn;", "\xe2\x88\x98" },
	{ "complement;", "\xe2\x88\x81" }, { "complexes;", "\xe2\x84\x82" },
	{ "cong;", "\xe2\x89\x85" }, { "congdot;", "\xe2\xa9\xad" }, { "conint;", "\xe2\x88\xae" },
	{ "copf;", "\xf0\x9d\x95\x94" }, { "coprod;", "\xe2\x88\x90" }, { "copy", "\xc2\xa9" },
	{ "copy;", "\xc2\xa9" }, { "copysr;", "\xe2\x84\x97" }, { "crarr;", "\xe2\x86\xb5" },
	{ "cross;", "\xe2\x9c\x97" }, { "cscr;", "\xf0\x9d\x92\xb8" }, { "csub;", "\xe2\xab\x8f" },
	{ "csube;", "\xe2\xab\x91" }, { "csup;", "\xe2\xab\x90" }, { "csupe;", "\xe2\xab\x92" },
	{ "ctdot;", "\xe2\x8b\xaf" }, { "cudarrl;", "\xe2\xa4\xb8" },
	{ "cudarrr;", "\xe2\xa4\xb5" }, { "cuepr;", "\xe2\x8b\x9e" }, { "cuesc;", "\xe2\x8b\x9f" },
	{ "cularr;", "\xe2\x86\xb6" }, { "cularrp;", "\xe2\xa4\xbd" }, { "cup;", "\xe2\x88\xaa" },
	{ "cupbrcap;", "\xe2\xa9\x88" }, { "cupcap;", "\xe2\xa9\x86" },
	{ "cupcup;", "\xe2\xa9\x8a" }, { "cupdot;", "\xe2\x8a\x8d" }, { "cupor;", "\xe2\xa9\x85" },
	{ "cups;", "\xe2\x88\xaa\xef\xb8\x80" }, { "curarr;", "\xe2\x86\xb7" },
	{ "curarrm;", "\xe2\xa4\xbc" }, { "curlyeqprec;", "\xe2\x8b\x9e" },
	{ "curlyeqsucc;", "\xe2\x8b\x9f" }, { "curlyvee;", "\xe2\x8b\x8e" },
	{ "curlywedge;", "\xe2\x8b\x8f" }, { "curren", "\xc2\xa4" }, { "curren;", "\xc2\xa4" },
	{ "curvearrowleft;", "\xe2\x86\xb6" }, { "curvearrowright;", "\xe2\x86\xb7" },
	{ "cuvee;", "\xe2\x8b\x8e" }, { "cuwed;", "\xe2\x8b\x8f" },
	{ "cwconint;", "\xe2\x88\xb2" }, { "cwint;", "\xe2\x88\xb1" },
	{ "cylcty;", "\xe2\x8c\xad" }, { "dArr;", "\xe2\x87\x93" }, { "dHar;", "\xe2\xa5\xa5" },
	{ "dagger;", "\xe2\x80\xa0" }, { "daleth;", "\xe2\x84\xb8" }, { "darr;", "\xe2\x86\x93" },
	{ "dash;", "\xe2\x80\x90" }, { "dashv;", "\xe2\x8a\xa3" }, { "dbkarow;", "\xe2\xa4\x8f" },
	{ "dblac;", "\xcb\x9d" }, { "dcaron;", "\xc4\x8f" }, { "dcy;", "\xd0\xb4" },
	{ "dd;", "\xe2\x85\x86" }, { "ddagger;", "\xe2\x80\xa1" }, { "ddarr;", "\xe2\x87\x8a" },
	{ "ddotseq;", "\xe2\xa9\xb7" }, { "deg", "\xc2\xb0" }, { "deg;", "\xc2\xb0" },
	{ "delta;", "\xce\xb4" }, { "demptyv;", "\xe2\xa6\xb1" }, { "dfisht;", "\xe2\xa5\xbf" },
	{ "dfr;", "\xf0\x9d\x94\xa1" }, { "dharl;", "\xe2\x87\x83" }, { "dharr;", "\xe2\x87\x82" },
	{ "diam;", "\xe2\x8b\x84" }, { "diamond;", "\xe2\x8b\x84" },
	{ "diamondsuit;", "\xe2\x99\xa6" }, { "diams;", "\xe2\x99\xa6" }, { "die;", "\xc2\xa8" },
	{ "digamma;", "\xcf\x9d" }, { "disin;", "\xe2\x8b\xb2" }, { "div;", "\xc3\xb7" },
	{ "divide", "\xc3\xb7" }, { "divide;", "\xc3\xb7" }, { "divideontimes;", "\xe2\x8b\x87" },
	{ "divonx;", "\xe2\x8b\x87" }, { "djcy;", "\xd1\x92" }, { "dlcorn;", "\xe2\x8c\x9e" },
	{ "dlcrop;", "\xe2\x8c\x8d" }, { "dollar;", "\x24" }, { "dopf;", "\xf0\x9d\x95\x95" },
	{ "dot;", "\xcb\x99" }, { "doteq;", "\xe2\x89\x90" }, { "doteqdot;", "\xe2\x89\x91" },
	{ "dotminus;", "\xe2\x88\xb8" }, { "dotplus;", "\xe2\x88\x94" },
	{ "dotsquare;", "\xe2\x8a\xa1" }, { "doublebarwedge;", "\xe2\x8c\x86" },
	{ "downarrow;", "\xe2\x86\x93" }, { "downdownarrows;", "\xe2\x87\x8a" },
	{ "downharpoonleft;", "\xe2\x87\x83" }, { "downharpoonright;", "\xe2\x87\x82" },
	{ "drbkarow;", "\xe2\xa4\x90" }, { "drcorn;", "\xe2\x8c\x9f" },
	{ "drcrop;", "\xe2\x8c\x8c" }, { "dscr;", "\xf0\x9d\x92\xb9" }, { "dscy;", "\xd1\x95" },
	{ "dsol;", "\xe2\xa7\xb6" }, { "dstrok;", "\xc4\x91" }, { "dtdot;", "\xe2\x8b\xb1" },
	{ "dtri;", "\xe2\x96\xbf" }, { "dtrif;", "\xe2\x96\xbe" }, { "duarr;", "\xe2\x87\xb5" },
	{ "duhar;", "\xe2\xa5\xaf" }, { "dwangle;", "\xe2\xa6\xa6" }, { "dzcy;", "\xd1\x9f" },
	{ "dzigrarr;", "\xe2\x9f\xbf" }, { "eDDot;", "\xe2\xa9\xb7" }, { "eDot;", "\xe2\x89\x91" },
	{ "eacute", "\xc3\xa9" }, { "eacute;", "\xc3\xa9" }, { "easter;", "\xe2\xa9\xae" },
	{ "ecaron;", "\xc4\x9b" }, { "ecir;", "\xe2\x89\x96" }, { "ecirc", "\xc3\xaa" },
	{ "ecirc;", "\xc3\xaa" }, { "ecolon;", "\xe2\x89\x95" }, { "ecy;", "\xd1\x8d" },
	{ "edot;", "\xc4\x97" }, { "ee;", "\xe2\x85\x87" }, { "efDot;", "\xe2\x89\x92" },
	{ "efr;", "\xf0\x9d\x94\xa2" }, { "eg;", "\xe2\xaa\x9a" }, { "egrave", "\xc3\xa8" },
	{ "egrave;", "\xc3\xa8" }, { "egs;", "\xe2\xaa\x96" }, { "egsdot;", "\xe2\xaa\x98" },
	{ "el;", "\xe2\xaa\x99" }, { "elinters;", "\xe2\x8f\xa7" }, { "ell;", "\xe2\x84\x93" },
	{ "els;", "\xe2\xaa\x95" }, { "elsdot;", "\xe2\xaa\x97" }, { "emacr;", "\xc4\x93" },
	{ "empty;", "\xe2\x88\x85" }, { "emptyset;", "\xe2\x88\x85" },
	{ "emptyv;", "\xe2\x88\x85" }, { "emsp13;", "\xe2\x80\x84" },
	{ "emsp14;", "\xe2\x80\x85" }, { "emsp;", "\xe2\x80\x83" }, { "eng;", "\xc5\x8b" },
	{ "ensp;", "\xe2\x80\x82" }, { "eogon;", "\xc4\x99" }, { "eopf;", "\xf0\x9d\x95\x96" },
	{ "epar;", "\xe2\x8b\x95" }, { "eparsl;", "\xe2\xa7\xa3" }, { "eplus;", "\xe2\xa9\xb1" },
	{ "epsi;", "\xce\xb5" }, { "epsilon;", "\xce\xb5" }, { "epsiv;", "\xcf\xb5" },
	{ "eqcirc;", "\xe2\x89\x96" }, { "eqcolon;", "\xe2\x89\x95" },
	{ "eqsim;", "\xe2\x89\x82" }, { "eqslantgtr;", "\xe2\xaa\x96" },
	{ "eqslantless;", "\xe2\xaa\x95" }, { "equals;", "\x3d" }, { "equest;", "\xe2\x89\x9f" },
	{ "equiv;", "\xe2\x89\xa1" }, { "equivDD;", "\xe2\xa9\xb8" },
	{ "eqvparsl;", "\xe2\xa7\xa5" }, { "erDot;", "\xe2\x89\x93" },
	{ "erarr;", "\xe2\xa5\xb1" }, { "escr;", "\xe2\x84\xaf" }, { "esdot;", "\xe2\x89\x90" },
	{ "esim;", "\xe2\x89\x82" }, { "eta;", "\xce\xb7" }, { "eth", "\xc3\xb0" },
	{ "eth;", "\xc3\xb0" }, { "euml", "\xc3\xab" }, { "euml;", "\xc3\xab" },
	{ "euro;", "\xe2\x82\xac" }, { "excl;", "\x21" }, { "exist;", "\xe2\x88\x83" },
	{ "expectation;", "\xe2\x84\xb0" }, { "exponentiale;", "\xe2\x85\x87" },
	{ "fallingdotseq;", "\xe2\x89\x92" }, { "fcy;", "\xd1\x84" },
	{ "female;", "\xe2\x99\x80" }, { "ffilig;", "\xef\xac\x83" }, { "fflig;", "\xef\xac\x80" },
	{ "ffllig;", "\xef\xac\x84" }, { "ffr;", "\xf0\x9d\x94\xa3" },
	{ "filig;", "\xef\xac\x81" }, { "fjlig;", "\x66\x6a" }, { "flat;", "\xe2\x99\xad" },
	{ "fllig;", "\xef\xac\x82" }, { "fltns;", "\xe2\x96\xb1" }, { "fnof;", "\xc6\x92" },
	{ "fopf;", "\xf0\x9d\x95\x97" }, { "forall;", "\xe2\x88\x80" },
	{ "fork;", "\xe2\x8b\x94" }, { "forkv;", "\xe2\xab\x99" }, { "fpartint;", "\xe2\xa8\x8d" },
	{ "frac12", "\xc2\xbd" }, { "frac12;", "\xc2\xbd" }, { "frac13;", "\xe2\x85\x93" },
	{ "frac14", "\xc2\xbc" }, { "frac14;", "\xc2\xbc" }, { "frac15;", "\xe2\x85\x95" },
	{ "frac16;", "\xe2\x85\x99" }, { "frac18;", "\xe2\x85\x9b" },
	{ "frac23;", "\xe2\x85\x94" }, { "frac25;", "\xe2\x85\x96" }, { "frac34", "\xc2\xbe" },
	{ "frac34;", "\xc2\xbe" }, { "frac35;", "\xe2\x85\x97" }, { "frac38;", "\xe2\x85\x9c" },
	{ "frac45;", "\xe2\x85\x98" }, { "frac56;", "\xe2\x85\x9a" },
	{ "frac58;", "\xe2\x85\x9d" }, { "frac78;", "\xe2\x85\x9e" }, { "frasl;", "\xe2\x81\x84" },
	{ "frown;", "\xe2\x8c\xa2" }, { "fscr;", "\xf0\x9d\x92\xbb" }, { "gE;", "\xe2\x89\xa7" },
	{ "gEl;", "\xe2\xaa\x8c" }, { "gacute;", "\xc7\xb5" }, { "gamma;", "\xce\xb3" },
	{ "gammad;", "\xcf\x9d" }, { "gap;", "\xe2\xaa\x86" }, { "gbreve;", "\xc4\x9f" },
	{ "gcirc;", "\xc4\x9d" }, { "gcy;", "\xd0\xb3" }, { "gdot;", "\xc4\xa1" },
	{ "ge;", "\xe2\x89\xa5" }, { "gel;", "\xe2\x8b\x9b" }, { "geq;", "\xe2\x89\xa5" },
	{ "geqq;", "\xe2\x89\xa7" }, { "geqslant;", "\xe2\xa9\xbe" }, { "ges;", "\xe2\xa9\xbe" },
	{ "gescc;", "\xe2\xaa\xa9" }, { "gesdot;", "\xe2\xaa\x80" },
	{ "gesdoto;", "\xe2\xaa\x82" }, { "gesdotol;", "\xe2\xaa\x84" },
	{ "gesl;", "\xe2\x8b\x9b\xef\xb8\x80" }, { "gesles;", "\xe2\xaa\x94" },
	{ "gfr;", "\xf0\x9d\x94\xa4" }, { "gg;", "\xe2\x89\xab" }, { "ggg;", "\xe2\x8b\x99" },
	{ "gimel;", "\xe2\x84\xb7" }, { "gjcy;", "\xd1\x93" }, { "gl;", "\xe2\x89\xb7" },
	{ "glE;", "\xe2\xaa\x92" }, { "gla;", "\xe2\xaa\xa5" }, { "glj;", "\xe2\xaa\xa4" },
	{ "gnE;", "\xe2\x89\xa9" }, { "gnap;", "\xe2\xaa\x8a" }, { "gnapprox;", "\xe2\xaa\x8a" },
	{ "gne;", "\xe2\xaa\x88" }, { "gneq;", "\xe2\xaa\x88" }, { "gneqq;", "\xe2\x89\xa9" },
	{ "gnsim;", "\xe2\x8b\xa7" }, { "gopf;", "\xf0\x9d\x95\x98" }, { "grave;", "\x60" },
	{ "gscr;", "\xe2\x84\x8a" }, { "gsim;", "\xe2\x89\xb3" }, { "gsime;", "\xe2\xaa\x8e" },
	{ "gsiml;", "\xe2\xaa\x90" }, { "gt", "\x3e" }, { "gt;", "\x3e" },
	{ "gtcc;", "\xe2\xaa\xa7" }, { "gtcir;", "\xe2\xa9\xba" }, { "gtdot;", "\xe2\x8b\x97" },
	{ "gtlPar;", "\xe2\xa6\x95" }, { "gtquest;", "\xe2\xa9\xbc" },
	{ "gtrapprox;", "\xe2\xaa\x86" }, { "gtrarr;", "\xe2\xa5\xb8" },
	{ "gtrdot;", "\xe2\x8b\x97" }, { "gtreqless;", "\xe2\x8b\x9b" },
	{ "gtreqqless;", "\xe2\xaa\x8c" }, { "gtrless;", "\xe2\x89\xb7" },
	{ "gtrsim;", "\xe2\x89\xb3" }, { "gvertneqq;", "\xe2\x89\xa9\xef\xb8\x80" },
	{ "gvnE;", "\xe2\x89\xa9\xef\xb8\x80" }, { "hArr;", "\xe2\x87\x94" },
	{ "hairsp;", "\xe2\x80\x8a" }, { "half;", "\xc2\xbd" }, { "hamilt;", "\xe2\x84\x8b" },
	{ "hardcy;", "\xd1\x8a" }, { "harr;", "\xe2\x86\x94" }, { "harrcir;", "\xe2\xa5\x88" },
	{ "harrw;", "\xe2\x86\xad" }, { "hbar;", "\xe2\x84\x8f" }, { "hcirc;", "\xc4\xa5" },
	{ "hearts;", "\xe2\x99\xa5" }, { "heartsuit;", "\xe2\x99\xa5" },
	{ "hellip;", "\xe2\x80\xa6" }, { "hercon;", "\xe2\x8a\xb9" },
	{ "hfr;", "\xf0\x9d\x94\xa5" }, { "hksearow;", "\xe2\xa4\xa5" },
	{ "hkswarow;", "\xe2\xa4\xa6" }, { "hoarr;", "\xe2\x87\xbf" },
	{ "homtht;", "\xe2\x88\xbb" }, { "hookleftarrow;", "\xe2\x86\xa9" },
	{ "hookrightarrow;", "\xe2\x86\xaa" }, { "hopf;", "\xf0\x9d\x95\x99" },
	{ "horbar;", "\xe2\x80\x95" }, { "hscr;", "\xf0\x9d\x92\xbd" },
	{ "hslash;", "\xe2\x84\x8f" }, { "hstrok;", "\xc4\xa7" }, { "hybull;", "\xe2\x81\x83" },
	{ "hyphen;", "\xe2\x80\x90" }, { "iacute", "\xc3\xad" }, { "iacute;", "\xc3\xad" },
	{ "ic;", "\xe2\x81\xa3" }, { "icirc", "\xc3\xae" }, { "icirc;", "\xc3\xae" },
	{ "icy;", "\xd0\xb8" }, { "iecy;", "\xd0\xb5" }, { "iexcl", "\xc2\xa1" },
	{ "iexcl;", "\xc2\xa1" }, { "iff;", "\xe2\x87\x94" }, { "ifr;", "\xf0\x9d\x94\xa6" },
	{ "igrave", "\xc3\xac" }, { "igrave;", "\xc3\xac" }, { "ii;", "\xe2\x85\x88" },
	{ "iiiint;", "\xe2\xa8\x8c" }, { "iiint;", "\xe2\x88\xad" }, { "iinfin;", "\xe2\xa7\x9c" },
	{ "iiota;", "\xe2\x84\xa9" }, { "ijlig;", "\xc4\xb3" }, { "imacr;", "\xc4\xab" },
	{ "image;", "\xe2\x84\x91" }, { "imagline;", "\xe2\x84\x90" },
	{ "imagpart;", "\xe2\x84\x91" }, { "imath;", "\xc4\xb1" }, { "imof;", "\xe2\x8a\xb7" },
	{ "imped;", "\xc6\xb5" }, { "in;", "\xe2\x88\x88" }, { "incare;", "\xe2\x84\x85" },
	{ "infin;", "\xe2\x88\x9e" }, { "infintie;", "\xe2\xa7\x9d" }, { "inodot;", "\xc4\xb1" },
	{ "int;", "\xe2\x88\xab" }, { "intcal;", "\xe2\x8a\xba" }, { "integers;", "\xe2\x84\xa4" },
	{ "intercal;", "\xe2\x8a\xba" }, { "intlarhk;", "\xe2\xa8\x97" },
	{ "intprod;", "\xe2\xa8\xbc" }, { "iocy;", "\xd1\x91" }, { "iogon;", "\xc4\xaf" },
	{ "iopf;", "\xf0\x9d\x95\x9a" }, { "iota;", "\xce\xb9" }, { "iprod;", "\xe2\xa8\xbc" },
	{ "iquest", "\xc2\xbf" }, { "iquest;", "\xc2\xbf" }, { "iscr;", "\xf0\x9d\x92\xbe" },
	{ "isin;", "\xe2\x88\x88" }, { "isinE;", "\xe2\x8b\xb9" }, { "isindot;", "\xe2\x8b\xb5" },
	{ "isins;", "\xe2\x8b\xb4" }, { "isinsv;", "\xe2\x8b\xb3" }, { "isinv;", "\xe2\x88\x88" },
	{ "it;", "\xe2\x81\xa2" }, { "itilde;", "\xc4\xa9" }, { "iukcy;", "\xd1\x96" },
	{ "iuml", "\xc3\xaf" }, { "iuml;", "\xc3\xaf" }, { "jcirc;", "\xc4\xb5" },
	{ "jcy;", "\xd0\xb9" }, { "jfr;", "\xf0\x9d\x94\xa7" }, { "jmath;", "\xc8\xb7" },
	{ "jopf;", "\xf0\x9d\x95\x9b" }, { "jscr;", "\xf0\x9d\x92\xbf" },
	{ "jsercy;", "\xd1\x98" }, { "jukcy;", "\xd1\x94" }, { "kappa;", "\xce\xba" },
	{ "kappav;", "\xcf\xb0" }, { "kcedil;", "\xc4\xb7" }, { "kcy;", "\xd0\xba" },
	{ "kfr;", "\xf0\x9d\x94\xa8" }, { "kgreen;", "\xc4\xb8" }, { "khcy;", "\xd1\x85" },
	{ "kjcy;", "\xd1\x9c" }, { "kopf;", "\xf0\x9d\x95\x9c" }, { "kscr;", "\xf0\x9d\x93\x80" },
	{ "lAarr;", "\xe2\x87\x9a" }, { "lArr;", "\xe2\x87\x90" }, { "lAtail;", "\xe2\xa4\x9b" },
	{ "lBarr;", "\xe2\xa4\x8e" }, { "lE;", "\xe2\x89\xa6" }, { "lEg;", "\xe2\xaa\x8b" },
	{ "lHar;", "\xe2\xa5\xa2" }, { "lacute;", "\xc4\xba" }, { "laemptyv;", "\xe2\xa6\xb4" },
	{ "lagran;", "\xe2\x84\x92" }, { "lambda;", "\xce\xbb" }, { "lang;", "\xe2\x9f\xa8" },
	{ "langd;", "\xe2\xa6\x91" }, { "langle;", "\xe2\x9f\xa8" }, { "lap;", "\xe2\xaa\x85" },
	{ "laquo", "\xc2\xab" }, { "laquo;", "\xc2\xab" }, { "larr;", "\xe2\x86\x90" },
	{ "larrb;", "\xe2\x87\xa4" }, { "larrbfs;", "\xe2\xa4\x9f" },
	{ "larrfs;", "\xe2\xa4\x9d" }, { "larrhk;", "\xe2\x86\xa9" },
	{ "larrlp;", "\xe2\x86\xab" }, { "larrpl;", "\xe2\xa4\xb9" },
	{ "larrsim;", "\xe2\xa5\xb3" }, { "larrtl;", "\xe2\x86\xa2" }, { "lat;", "\xe2\xaa\xab" },
	{ "latail;", "\xe2\xa4\x99" }, { "late;", "\xe2\xaa\xad" },
	{ "lates;", "\xe2\xaa\xad\xef\xb8\x80" }, { "lbarr;", "\xe2\xa4\x8c" },
	{ "lbbrk;", "\xe2\x9d\xb2" }, { "lbrace;", "\x7b" }, { "lbrack;", "\x5b" },
	{ "lbrke;", "\xe2\xa6\x8b" }, { "lbrksld;", "\xe2\xa6\x8f" },
	{ "lbrkslu;", "\xe2\xa6\x8d" }, { "lcaron;", "\xc4\xbe" }, { "lcedil;", "\xc4\xbc" },
	{ "lceil;", "\xe2\x8c\x88" }, { "lcub;", "\x7b" }, { "lcy;", "\xd0\xbb" },
	{ "ldca;", "\xe2\xa4\xb6" }, { "ldquo;", "\xe2\x80\x9c" }, { "ldquor;", "\xe2\x80\x9e" },
	{ "ldrdhar;", "\xe2\xa5\xa7" }, { "ldrushar;", "\xe2\xa5\x8b" },
	{ "ldsh;", "\xe2\x86\xb2" }, { "le;", "\xe2\x89\xa4" }, { "leftarrow;", "\xe2\x86\x90" },
	{ "leftarrowtail;", "\xe2\x86\xa2" }, { "leftharpoondown;", "\xe2\x86\xbd" },
	{ "leftharpoonup;", "\xe2\x86\xbc" }, { "leftleftarrows;", "\xe2\x87\x87" },
	{ "leftrightarrow;", "\xe2\x86\x94" }, { "leftrightarrows;", "\xe2\x87\x86" },
	{ "leftrightharpoons;", "\xe2\x87\x8b" }, { "leftrightsquigarrow;", "\xe2\x86\xad" },
	{ "leftthreetimes;", "\xe2\x8b\x8b" }, { "leg;", "\xe2\x8b\x9a" },
	{ "leq;", "\xe2\x89\xa4" }, { "leqq;", "\xe2\x89\xa6" }, { "leqslant;", "\xe2\xa9\xbd" },
	{ "les;", "\xe2\xa9\xbd" }, { "lescc;", "\xe2\xaa\xa8" }, { "lesdot;", "\xe2\xa9\xbf" },
	{ "lesdoto;", "\xe2\xaa\x81" }, { "lesdotor;", "\xe2\xaa\x83" },
	{ "lesg;", "\xe2\x8b\x9a\xef\xb8\x80" }, { "lesges;", "\xe2\xaa\x93" },
	{ "lessapprox;", "\xe2\xaa\x85" }, { "lessdot;", "\xe2\x8b\x96" },
	{ "lesseqgtr;", "\xe2\x8b\x9a" }, { "lesseqqgtr;", "\xe2\xaa\x8b" },
	{ "lessgtr;", "\xe2\x89\xb6" }, { "lesssim;", "\xe2\x89\xb2" },
	{ "lfisht;", "\xe2\xa5\xbc" }, { "lfloor;", "\xe2\x8c\x8a" },
	{ "lfr;", "\xf0\x9d\x94\xa9" }, { "lg;", "\xe2\x89\xb6" }, { "lgE;", "\xe2\xaa\x91" },
	{ "lhard;", "\xe2\x86\xbd" }, { "lharu;", "\xe2\x86\xbc" }, { "lharul;", "\xe2\xa5\xaa" },
	{ "lhblk;", "\xe2\x96\x84" }, { "ljcy;", "\xd1\x99" }, { "ll;", "\xe2\x89\xaa" },
	{ "llarr;", "\xe2\x87\x87" }, { "llcorner;", "\xe2\x8c\x9e" },
	{ "llhard;", "\xe2\xa5\xab" }, { "lltri;", "\xe2\x97\xba" }, { "lmidot;", "\xc5\x80" },
	{ "lmoust;", "\xe2\x8e\xb0" }, { "lmoustache;", "\xe2\x8e\xb0" },
	{ "lnE;", "\xe2\x89\xa8" }, { "lnap;", "\xe2\xaa\x89" }, { "lnapprox;", "\xe2\xaa\x89" },
	{ "lne;", "\xe2\xaa\x87" }, { "lneq;", "\xe2\xaa\x87" }, { "lneqq;", "\xe2\x89\xa8" },
	{ "lnsim;", "\xe2\x8b\xa6" }, { "loang;", "\xe2\x9f\xac" }, { "loarr;", "\xe2\x87\xbd" },
	{ "lobrk;", "\xe2\x9f\xa6" }, { "longleftarrow;", "\xe2\x9f\xb5" },
	{ "longleftrightarrow;", "\xe2\x9f\xb7" }, { "longmapsto;", "\xe2\x9f\xbc" },
	{ "longrightarrow;", "\xe2\x9f\xb6" }, { "looparrowleft;", "\xe2\x86\xab" },
	{ "looparrowright;", "\xe2\x86\xac" }, { "lopar;", "\xe2\xa6\x85" },
	{ "lopf;", "\xf0\x9d\x95\x9d" }, { "loplus;", "\xe2\xa8\xad" },
	{ "lotimes;", "\xe2\xa8\xb4" }, { "lowast;", "\xe2\x88\x97" }, { "lowbar;", "\x5f" },
	{ "loz;", "\xe2\x97\x8a" }, { "lozenge;", "\xe2\x97\x8a" }, { "lozf;", "\xe2\xa7\xab" },
	{ "lpar;", "\x28" }, { "lparlt;", "\xe2\xa6\x93" }, { "lrarr;", "\xe2\x87\x86" },
	{ "lrcorner;", "\xe2\x8c\x9f" }, { "lrhar;", "\xe2\x87\x8b" },
	{ "lrhard;", "\xe2\xa5\xad" }, { "lrm;", "\xe2\x80\x8e" }, { "lrtri;", "\xe2\x8a\xbf" },
	{ "lsaquo;", "\xe2\x80\xb9" }, { "lscr;", "\xf0\x9d\x93\x81" }, { "lsh;", "\xe2\x86\xb0" },
	{ "lsim;", "\xe2\x89\xb2" }, { "lsime;", "\xe2\xaa\x8d" }, { "lsimg;", "\xe2\xaa\x8f" },
	{ "lsqb;", "\x5b" }, { "lsquo;", "\xe2\x80\x98" }, { "lsquor;", "\xe2\x80\x9a" },
	{ "lstrok;", "\xc5\x82" }, { "lt", "\x3c" }, { "lt;", "\x3c" },
	{ "ltcc;", "\xe2\xaa\xa6" }, { "ltcir;", "\xe2\xa9\xb9" }, { "ltdot;", "\xe2\x8b\x96" },
	{ "lthree;", "\xe2\x8b\x8b" }, { "ltimes;", "\xe2\x8b\x89" },
	{ "ltlarr;", "\xe2\xa5\xb6" }, { "ltquest;", "\xe2\xa9\xbb" },
	{ "ltrPar;", "\xe2\xa6\x96" }, { "ltri;", "\xe2\x97\x83" }, { "ltrie;", "\xe2\x8a\xb4" },
	{ "ltrif;", "\xe2\x97\x82" }, { "lurdshar;", "\xe2\xa5\x8a" },
	{ "luruhar;", "\xe2\xa5\xa6" }, { "lvertneqq;", "\xe2\x89\xa8\xef\xb8\x80" },
	{ "lvnE;", "\xe2\x89\xa8\xef\xb8\x80" }, { "mDDot;", "\xe2\x88\xba" },
	{ "macr", "\xc2\xaf" }, { "macr;", "\xc2\xaf" }, { "male;", "\xe2\x99\x82" },
	{ "malt;", "\xe2\x9c\xa0" }, { "maltese;", "\xe2\x9c\xa0" }, { "map;", "\xe2\x86\xa6" },
	{ "mapsto;", "\xe2\x86\xa6" }, { "mapstodown;", "\xe2\x86\xa7" },
	{ "mapstoleft;", "\xe2\x86\xa4" }, { "mapstoup;", "\xe2\x86\xa5" },
	{ "marker;", "\xe2\x96\xae" }, { "mcomma;", "\xe2\xa8\xa9" }, { "mcy;", "\xd0\xbc" },
	{ "mdash;", "\xe2\x80\x94" }, { "measuredangle;", "\xe2\x88\xa1" },
	{ "mfr;", "\xf0\x9d\x94\xaa" }, { "mho;", "\xe2\x84\xa7" }, { "micro", "\xc2\xb5" },
	{ "micro;", "\xc2\xb5" }, { "mid;", "\xe2\x88\xa3" }, { "midast;", "\x2a" },
	{ "midcir;", "\xe2\xab\xb0" }, { "middot", "\xc2\xb7" }, { "middot;", "\xc2\xb7" },
	{ "minus;", "\xe2\x88\x92" }, { "minusb;", "\xe2\x8a\x9f" }, { "minusd;", "\xe2\x88\xb8" },
	{ "minusdu;", "\xe2\xa8\xaa" }, { "mlcp;", "\xe2\xab\x9b" }, { "mldr;", "\xe2\x80\xa6" },
	{ "mnplus;", "\xe2\x88\x93" }, { "models;", "\xe2\x8a\xa7" },
	{ "mopf;", "\xf0\x9d\x95\x9e" }, { "mp;", "\xe2\x88\x93" },
	{ "mscr;", "\xf0\x9d\x93\x82" }, { "mstpos;", "\xe2\x88\xbe" }, { "mu;", "\xce\xbc" },
	{ "multimap;", "\xe2\x8a\xb8" }, { "mumap;", "\xe2\x8a\xb8" },
	{ "nGg;", "\xe2\x8b\x99\xcc\xb8" }, { "nGt;", "\xe2\x89\xab\xe2\x83\x92" },
	{ "nGtv;", "\xe2\x89\xab\xcc\xb8" }, { "nLeftarrow;", "\xe2\x87\x8d" },
	{ "nLeftrightarrow;", "\xe2\x87\x8e" }, { "nLl;", "\xe2\x8b\x98\xcc\xb8" },
	{ "nLt;", "\xe2\x89\xaa\xe2\x83\x92" }, { "nLtv;", "\xe2\x89\xaa\xcc\xb8" },
	{ "nRightarrow;", "\xe2\x87\x8f" }, { "nVDash;", "\xe2\x8a\xaf" },
	{ "nVdash;", "\xe2\x8a\xae" }, { "nabla;", "\xe2\x88\x87" }, { "nacute;", "\xc5\x84" },
	{ "nang;", "\xe2\x88\xa0\xe2\x83\x92" }, { "nap;", "\xe2\x89\x89" },
	{ "napE;", "\xe2\xa9\xb0\xcc\xb8" }, { "napid;", "\xe2\x89\x8b\xcc\xb8" },
	{ "napos;", "\xc5\x89" }, { "napprox;", "\xe2\x89\x89" }, { "natur;", "\xe2\x99\xae" },
	{ "natural;", "\xe2\x99\xae" }, { "naturals;", "\xe2\x84\x95" }, { "nbsp", "\xc2\xa0" },
	{ "nbsp;", "\xc2\xa0" }, { "nbump;", "\xe2\x89\x8e\xcc\xb8" },
	{ "nbumpe;", "\xe2\x89\x8f\xcc\xb8" }, { "ncap;", "\xe2\xa9\x83" },
	{ "ncaron;", "\xc5\x88" }, { "ncedil;", "\xc5\x86" }, { "ncong;", "\xe2\x89\x87" },
	{ "ncongdot;", "\xe2\xa9\xad\xcc\xb8" }, { "ncup;", "\xe2\xa9\x82" },
	{ "ncy;", "\xd0\xbd" }, { "ndash;", "\xe2\x80\x93" }, { "ne;", "\xe2\x89\xa0" },
	{ "neArr;", "\xe2\x87\x97" }, { "nearhk;", "\xe2\xa4\xa4" }, { "nearr;", "\xe2\x86\x97" },
	{ "nearrow;", "\xe2\x86\x97" }, { "nedot;", "\xe2\x89\x90\xcc\xb8" },
	{ "nequiv;", "\xe2\x89\xa2" }, { "nesear;", "\xe2\xa4\xa8" },
	{ "nesim;", "\xe2\x89\x82\xcc\xb8" }, { "nexist;", "\xe2\x88\x84" },
	{ "nexists;", "\xe2\x88\x84" }, { "nfr;", "\xf0\x9d\x94\xab" },
	{ "ngE;", "\xe2\x89\xa7\xcc\xb8" }, { "nge;", "\xe2\x89\xb1" },
	{ "ngeq;", "\xe2\x89\xb1" }, { "ngeqq;", "\xe2\x89\xa7\xcc\xb8" },
	{ "ngeqslant;", "\xe2\xa9\xbe\xcc\xb8" }, { "nges;", "\xe2\xa9\xbe\xcc\xb8" },
	{ "ngsim;", "\xe2\x89\xb5" }, { "ngt;", "\xe2\x89\xaf" }, { "ngtr;", "\xe2\x89\xaf" },
	{ "nhArr;", "\xe2\x87\x8e" }, { "nharr;", "\xe2\x86\xae" }, { "nhpar;", "\xe2\xab\xb2" },
	{ "ni;", "\xe2\x88\x8b" }, { "nis;", "\xe2\x8b\xbc" }, { "nisd;", "\xe2\x8b\xba" },
	{ "niv;", "\xe2\x88\x8b" }, { "njcy;", "\xd1\x9a" }, { "nlArr;", "\xe2\x87\x8d" },
	{ "nlE;", "\xe2\x89\xa6\xcc\xb8" }, { "nlarr;", "\xe2\x86\x9a" },
	{ "nldr;", "\xe2\x80\xa5" }, { "nle;", "\xe2\x89\xb0" }, { "nleftarrow;", "\xe2\x86\x9a" },
	{ "nleftrightarrow;", "\xe2\x86\xae" }, { "nleq;", "\xe2\x89\xb0" },
	{ "nleqq;", "\xe2\x89\xa6\xcc\xb8" }, { "nleqslant;", "\xe2\xa9\xbd\xcc\xb8" },
	{ "nles;", "\xe2\xa9\xbd\xcc\xb8" }, { "nless;", "\xe2\x89\xae" },
	{ "nlsim;", "\xe2\x89\xb4" }, { "nlt;", "\xe2\x89\xae" }, { "nltri;", "\xe2\x8b\xaa" },
	{ "nltrie;", "\xe2\x8b\xac" }, { "nmid;", "\xe2\x88\xa4" },
	{ "nopf;", "\xf0\x9d\x95\x9f" }, { "not", "\xc2\xac" }, { "not;", "\xc2\xac" },
	{ "notin;", "\xe2\x88\x89" }, { "notinE;", "\xe2\x8b\xb9\xcc\xb8" },
	{ "notindot;", "\xe2\x8b\xb5\xcc\xb8" }, { "notinva;", "\xe2\x88\x89" },
	{ "notinvb;", "\xe2\x8b\xb7" }, { "notinvc;", "\xe2\x8b\xb6" },
	{ "notni;", "\xe2\x88\x8c" }, { "notniva;", "\xe2\x88\x8c" },
	{ "notnivb;", "\xe2\x8b\xbe" }, { "notnivc;", "\xe2\x8b\xbd" },
	{ "npar;", "\xe2\x88\xa6" }, { "nparallel;", "\xe2\x88\xa6" },
	{ "nparsl;", "\xe2\xab\xbd\xe2\x83\xa5" }, { "npart;", "\xe2\x88\x82\xcc\xb8" },
	{ "npolint;", "\xe2\xa8\x94" }, { "npr;", "\xe2\x8a\x80" }, { "nprcue;", "\xe2\x8b\xa0" },
	{ "npre;", "\xe2\xaa\xaf\xcc\xb8" }, { "nprec;", "\xe2\x8a\x80" },
	{ "npreceq;", "\xe2\xaa\xaf\xcc\xb8" }, { "nrArr;", "\xe2\x87\x8f" },
	{ "nrarr;", "\xe2\x86\x9b" }, { "nrarrc;", "\xe2\xa4\xb3\xcc\xb8" },
	{ "nrarrw;", "\xe2\x86\x9d\xcc\xb8" }, { "nrightarrow;", "\xe2\x86\x9b" },
	{ "nrtri;", "\xe2\x8b\xab" }, { "nrtrie;", "\xe2\x8b\xad" }, { "nsc;", "\xe2\x8a\x81" },
	{ "nsccue;", "\xe2\x8b\xa1" }, { "nsce;", "\xe2\xaa\xb0\xcc\xb8" },
	{ "nscr;", "\xf0\x9d\x93\x83" }, { "nshortmid;", "\xe2\x88\xa4" },
	{ "nshortparallel;", "\xe2\x88\xa6" }, { "nsim;", "\xe2\x89\x81" },
	{ "nsime;", "\xe2\x89\x84" }, { "nsimeq;", "\xe2\x89\x84" }, { "nsmid;", "\xe2\x88\xa4" },
	{ "nspar;", "\xe2\x88\xa6" }, { "nsqsube;", "\xe2\x8b\xa2" },
	{ "nsqsupe;", "\xe2\x8b\xa3" }, { "nsub;", "\xe2\x8a\x84" },
	{ "nsubE;", "\xe2\xab\x85\xcc\xb8" }, { "nsube;", "\xe2\x8a\x88" },
	{ "nsubset;", "\xe2\x8a\x82\xe2\x83\x92" }, { "nsubseteq;", "\xe2\x8a\x88" },
	{ "nsubseteqq;", "\xe2\xab\x85\xcc\xb8" }, { "nsucc;", "\xe2\x8a\x81" },
	{ "nsucceq;", "\xe2\xaa\xb0\xcc\xb8" }, { "nsup;", "\xe2\x8a\x85" },
	{ "nsupE;", "\xe2\xab\x86\xcc\xb8" }, { "nsupe;", "\xe2\x8a\x89" },
	{ "nsupset;", "\xe2\x8a\x83\xe2\x83\x92" }, { "nsupseteq;", "\xe2\x8a\x89" },
	{ "nsupseteqq;", "\xe2\xab\x86\xcc\xb8" }, { "ntgl;", "\xe2\x89\xb9" },
	{ "ntilde", "\xc3\xb1" }, { "ntilde;", "\xc3\xb1" }, { "ntlg;", "\xe2\x89\xb8" },
	{ "ntriangleleft;", "\xe2\x8b\xaa" }, { "ntrianglelefteq;", "\xe2\x8b\xac" },
	{ "ntriangleright;", "\xe2\x8b\xab" }, { "ntrianglerighteq;", "\xe2\x8b\xad" },
	{ "nu;", "\xce\xbd" }, { "num;", "\x23" }, { "numero;", "\xe2\x84\x96" },
	{ "numsp;", "\xe2\x80\x87" }, { "nvDash;", "\xe2\x8a\xad" }, { "nvHarr;", "\xe2\xa4\x84" },
	{ "nvap;", "\xe2\x89\x8d\xe2\x83\x92" }, { "nvdash;", "\xe2\x8a\xac" },
	{ "nvge;", "\xe2\x89\xa5\xe2\x83\x92" }, { "nvgt;", "\x3e\xe2\x83\x92" },
	{ "nvinfin;", "\xe2\xa7\x9e" }, { "nvlArr;", "\xe2\xa4\x82" },
	{ "nvle;", "\xe2\x89\xa4\xe2\x83\x92" }, { "nvlt;", "\x3c\xe2\x83\x92" },
	{ "nvltrie;", "\xe2\x8a\xb4\xe2\x83\x92" }, { "nvrArr;", "\xe2\xa4\x83" },
	{ "nvrtrie;", "\xe2\x8a\xb5\xe2\x83\x92" }, { "nvsim;", "\xe2\x88\xbc\xe2\x83\x92" },
	{ "nwArr;", "\xe2\x87\x96" }, { "nwarhk;", "\xe2\xa4\xa3" }, { "nwarr;", "\xe2\x86\x96" },
	{ "nwarrow;", "\xe2\x86\x96" }, { "nwnear;", "\xe2\xa4\xa7" }, { "oS;", "\xe2\x93\x88" },
	{ "oacute", "\xc3\xb3" }, { "oacute;", "\xc3\xb3" }, { "oast;", "\xe2\x8a\x9b" },
	{ "ocir;", "\xe2\x8a\x9a" }, { "ocirc", "\xc3\xb4" }, { "ocirc;", "\xc3\xb4" },
	{ "ocy;", "\xd0\xbe" }, { "odash;", "\xe2\x8a\x9d" }, { "odblac;", "\xc5\x91" },
	{ "odiv;", "\xe2\xa8\xb8" }, { "odot;", "\xe2\x8a\x99" }, { "odsold;", "\xe2\xa6\xbc" },
	{ "oelig;", "\xc5\x93" }, { "ofcir;", "\xe2\xa6\xbf" }, { "ofr;", "\xf0\x9d\x94\xac" },
	{ "ogon;", "\xcb\x9b" }, { "ograve", "\xc3\xb2" }, { "ograve;", "\xc3\xb2" },
	{ "ogt;", "\xe2\xa7\x81" }, { "ohbar;", "\xe2\xa6\xb5" }, { "ohm;", "\xce\xa9" },
	{ "oint;", "\xe2\x88\xae" }, { "olarr;", "\xe2\x86\xba" }, { "olcir;", "\xe2\xa6\xbe" },
	{ "olcross;", "\xe2\xa6\xbb" }, { "oline;", "\xe2\x80\xbe" }, { "olt;", "\xe2\xa7\x80" },
	{ "omacr;", "\xc5\x8d" }, { "omega;", "\xcf\x89" }, { "omicron;", "\xce\xbf" },
	{ "omid;", "\xe2\xa6\xb6" }, { "ominus;", "\xe2\x8a\x96" },
	{ "oopf;", "\xf0\x9d\x95\xa0" }, { "opar;", "\xe2\xa6\xb7" }, { "operp;", "\xe2\xa6\xb9" },
	{ "oplus;", "\xe2\x8a\x95" }, { "or;", "\xe2\x88\xa8" }, { "orarr;", "\xe2\x86\xbb" },
	{ "ord;", "\xe2\xa9\x9d" }, { "order;", "\xe2\x84\xb4" }, { "orderof;", "\xe2\x84\xb4" },
	{ "ordf", "\xc2\xaa" }, { "ordf;", "\xc2\xaa" }, { "ordm", "\xc2\xba" },
	{ "ordm;", "\xc2\xba" }, { "origof;", "\xe2\x8a\xb6" }, { "oror;", "\xe2\xa9\x96" },
	{ "orslope;", "\xe2\xa9\x97" }, { "orv;", "\xe2\xa9\x9b" }, { "oscr;", "\xe2\x84\xb4" },
	{ "oslash", "\xc3\xb8" }, { "oslash;", "\xc3\xb8" }, { "osol;", "\xe2\x8a\x98" },
	{ "otilde", "\xc3\xb5" }, { "otilde;", "\xc3\xb5" }, { "otimes;", "\xe2\x8a\x97" },
	{ "otimesas;", "\xe2\xa8\xb6" }, { "ouml", "\xc3\xb6" }, { "ouml;", "\xc3\xb6" },
	{ "ovbar;", "\xe2\x8c\xbd" }, { "par;", "\xe2\x88\xa5" }, { "para", "\xc2\xb6" },
	{ "para;", "\xc2\xb6" }, { "parallel;", "\xe2\x88\xa5" }, { "parsim;", "\xe2\xab\xb3" },
	{ "parsl;", "\xe2\xab\xbd" }, { "part;", "\xe2\x88\x82" }, { "pcy;", "\xd0\xbf" },
	{ "percnt;", "\x25" }, { "period;", "\x2e" }, { "permil;", "\xe2\x80\xb0" },
	{ "perp;", "\xe2\x8a\xa5" }, { "pertenk;", "\xe2\x80\xb1" },
	{ "pfr;", "\xf0\x9d\x94\xad" }, { "phi;", "\xcf\x86" }, { "phiv;", "\xcf\x95" },
	{ "phmmat;", "\xe2\x84\xb3" }, { "phone;", "\xe2\x98\x8e" }, { "pi;", "\xcf\x80" },
	{ "pitchfork;", "\xe2\x8b\x94" }, { "piv;", "\xcf\x96" }, { "planck;", "\xe2\x84\x8f" },
	{ "planckh;", "\xe2\x84\x8e" }, { "plankv;", "\xe2\x84\x8f" }, { "plus;", "\x2b" },
	{ "plusacir;", "\xe2\xa8\xa3" }, { "plusb;", "\xe2\x8a\x9e" },
	{ "pluscir;", "\xe2\xa8\xa2" }, { "plusdo;", "\xe2\x88\x94" },
	{ "plusdu;", "\xe2\xa8\xa5" }, { "pluse;", "\xe2\xa9\xb2" }, { "plusmn", "\xc2\xb1" },
	{ "plusmn;", "\xc2\xb1" }, { "plussim;", "\xe2\xa8\xa6" }, { "plustwo;", "\xe2\xa8\xa7" },
	{ "pm;", "\xc2\xb1" }, { "pointint;", "\xe2\xa8\x95" }, { "popf;", "\xf0\x9d\x95\xa1" },
	{ "pound", "\xc2\xa3" }, { "pound;", "\xc2\xa3" }, { "pr;", "\xe2\x89\xba" },
	{ "prE;", "\xe2\xaa\xb3" }, { "prap;", "\xe2\xaa\xb7" }, { "prcue;", "\xe2\x89\xbc" },
	{ "pre;", "\xe2\xaa\xaf" }, { "prec;", "\xe2\x89\xba" }, { "precapprox;", "\xe2\xaa\xb7" },
	{ "preccurlyeq;", "\xe2\x89\xbc" }, { "preceq;", "\xe2\xaa\xaf" },
	{ "precnapprox;", "\xe2\xaa\xb9" }, { "precneqq;", "\xe2\xaa\xb5" },
	{ "precnsim;", "\xe2\x8b\xa8" }, { "precsim;", "\xe2\x89\xbe" },
	{ "prime;", "\xe2\x80\xb2" }, { "primes;", "\xe2\x84\x99" }, { "prnE;", "\xe2\xaa\xb5" },
	{ "prnap;", "\xe2\xaa\xb9" }, { "prnsim;", "\xe2\x8b\xa8" }, { "prod;", "\xe2\x88\x8f" },
	{ "profalar;", "\xe2\x8c\xae" }, { "profline;", "\xe2\x8c\x92" },
	{ "profsurf;", "\xe2\x8c\x93" }, { "prop;", "\xe2\x88\x9d" },
	{ "propto;", "\xe2\x88\x9d" }, { "prsim;", "\xe2\x89\xbe" }, { "prurel;", "\xe2\x8a\xb0" },
	{ "pscr;", "\xf0\x9d\x93\x85" }, { "psi;", "\xcf\x88" }, { "puncsp;", "\xe2\x80\x88" },
	{ "qfr;", "\xf0\x9d\x94\xae" }, { "qint;", "\xe2\xa8\x8c" },
	{ "qopf;", "\xf0\x9d\x95\xa2" }, { "qprime;", "\xe2\x81\x97" },
	{ "qscr;", "\xf0\x9d\x93\x86" }, { "quaternions;", "\xe2\x84\x8d" },
	{ "quatint;", "\xe2\xa8\x96" }, { "quest;", "\x3f" }, { "questeq;", "\xe2\x89\x9f" },
	{ "quot", "\x22" }, { "quot;", "\x22" }, { "rAarr;", "\xe2\x87\x9b" },
	{ "rArr;", "\xe2\x87\x92" }, { "rAtail;", "\xe2\xa4\x9c" }, { "rBarr;", "\xe2\xa4\x8f" },
	{ "rHar;", "\xe2\xa5\xa4" }, { "race;", "\xe2\x88\xbd\xcc\xb1" },
	{ "racute;", "\xc5\x95" }, { "radic;", "\xe2\x88\x9a" }, { "raemptyv;", "\xe2\xa6\xb3" },
	{ "rang;", "\xe2\x9f\xa9" }, { "rangd;", "\xe2\xa6\x92" }, { "range;", "\xe2\xa6\xa5" },
	{ "rangle;", "\xe2\x9f\xa9" }, { "raquo", "\xc2\xbb" }, { "raquo;", "\xc2\xbb" },
	{ "rarr;", "\xe2\x86\x92" }, { "rarrap;", "\xe2\xa5\xb5" }, { "rarrb;", "\xe2\x87\xa5" },
	{ "rarrbfs;", "\xe2\xa4\xa0" }, { "rarrc;", "\xe2\xa4\xb3" },
	{ "rarrfs;", "\xe2\xa4\x9e" }, { "rarrhk;", "\xe2\x86\xaa" },
	{ "rarrlp;", "\xe2\x86\xac" }, { "rarrpl;", "\xe2\xa5\x85" },
	{ "rarrsim;", "\xe2\xa5\xb4" }, { "rarrtl;", "\xe2\x86\xa3" },
	{ "rarrw;", "\xe2\x86\x9d" }, { "ratail;", "\xe2\xa4\x9a" }, { "ratio;", "\xe2\x88\xb6" },
	{ "rationals;", "\xe2\x84\x9a" }, { "rbarr;", "\xe2\xa4\x8d" },
	{ "rbbrk;", "\xe2\x9d\xb3" }, { "rbrace;", "\x7d" }, { "rbrack;", "\x5d" },
	{ "rbrke;", "\xe2\xa6\x8c" }, { "rbrksld;", "\xe2\xa6\x8e" },
	{ "rbrkslu;", "\xe2\xa6\x90" }, { "rcaron;", "\xc5\x99" }, { "rcedil;", "\xc5\x97" },
	{ "rceil;", "\xe2\x8c\x89" }, { "rcub;", "\x7d" }, { "rcy;", "\xd1\x80" },
	{ "rdca;", "\xe2\xa4\xb7" }, { "rdldhar;", "\xe2\xa5\xa9" }, { "rdquo;", "\xe2\x80\x9d" },
	{ "rdquor;", "\xe2\x80\x9d" }, { "rdsh;", "\xe2\x86\xb3" }, { "real;", "\xe2\x84\x9c" },
	{ "realine;", "\xe2\x84\x9b" }, { "realpart;", "\xe2\x84\x9c" },
	{ "reals;", "\xe2\x84\x9d" }, { "rect;", "\xe2\x96\xad" }, { "reg", "\xc2\xae" },
	{ "reg;", "\xc2\xae" }, { "rfisht;", "\xe2\xa5\xbd" }, { "rfloor;", "\xe2\x8c\x8b" },
	{ "rfr;", "\xf0\x9d\x94\xaf" }, { "rhard;", "\xe2\x87\x81" }, { "rharu;", "\xe2\x87\x80" },
	{ "rharul;", "\xe2\xa5\xac" }, { "rho;", "\xcf\x81" }, { "rhov;", "\xcf\xb1" },
	{ "rightarrow;", "\xe2\x86\x92" }, { "rightarrowtail;", "\xe2\x86\xa3" },
	{ "rightharpoondown;", "\xe2\x87\x81" }, { "rightharpoonup;", "\xe2\x87\x80" },
	{ "rightleftarrows;", "\xe2\x87\x84" }, { "rightleftharpoons;", "\xe2\x87\x8c" },
	{ "rightrightarrows;", "\xe2\x87\x89" }, { "rightsquigarrow;", "\xe2\x86\x9d" },
	{ "rightthreetimes;", "\xe2\x8b\x8c" }, { "ring;", "\xcb\x9a" },
	{ "risingdotseq;", "\xe2\x89\x93" }, { "rlarr;", "\xe2\x87\x84" },
	{ "rlhar;", "\xe2\x87\x8c" }, { "rlm;", "\xe2\x80\x8f" }, { "rmoust;", "\xe2\x8e\xb1" },
	{ "rmoustache;", "\xe2\x8e\xb1" }, { "rnmid;", "\xe2\xab\xae" },
	{ "roang;", "\xe2\x9f\xad" }, { "roarr;", "\xe2\x87\xbe" }, { "robrk;", "\xe2\x9f\xa7" },
	{ "ropar;", "\xe2\xa6\x86" }, { "ropf;", "\xf0\x9d\x95\xa3" },
	{ "roplus;", "\xe2\xa8\xae" }, { "rotimes;", "\xe2\xa8\xb5" }, { "rpar;", "\x29" },
	{ "rpargt;", "\xe2\xa6\x94" }, { "rppolint;", "\xe2\xa8\x92" },
	{ "rrarr;", "\xe2\x87\x89" }, { "rsaquo;", "\xe2\x80\xba" },
	{ "rscr;", "\xf0\x9d\x93\x87" }, { "rsh;", "\xe2\x86\xb1" }, { "rsqb;", "\x5d" },
	{ "rsquo;", "\xe2\x80\x99" }, { "rsquor;", "\xe2\x80\x99" }, { "rthree;", "\xe2\x8b\x8c" },
	{ "rtimes;", "\xe2\x8b\x8a" }, { "rtri;", "\xe2\x96\xb9" }, { "rtrie;", "\xe2\x8a\xb5" },
	{ "rtrif;", "\xe2\x96\xb8" }, { "rtriltri;", "\xe2\xa7\x8e" },
	{ "ruluhar;", "\xe2\xa5\xa8" }, { "rx;", "\xe2\x84\x9e" }, { "sacute;", "\xc5\x9b" },
	{ "sbquo;", "\xe2\x80\x9a" }, { "sc;", "\xe2\x89\xbb" }, { "scE;", "\xe2\xaa\xb4" },
	{ "scap;", "\xe2\xaa\xb8" }, { "scaron;", "\xc5\xa1" }, { "sccue;", "\xe2\x89\xbd" },
	{ "sce;", "\xe2\xaa\xb0" }, { "scedil;", "\xc5\x9f" }, { "scirc;", "\xc5\x9d" },
	{ "scnE;", "\xe2\xaa\xb6" }, { "scnap;", "\xe2\xaa\xba" }, { "scnsim;", "\xe2\x8b\xa9" },
	{ "scpolint;", "\xe2\xa8\x93" }, { "scsim;", "\xe2\x89\xbf" }, { "scy;", "\xd1\x81" },
	{ "sdot;", "\xe2\x8b\x85" }, { "sdotb;", "\xe2\x8a\xa1" }, { "sdote;", "\xe2\xa9\xa6" },
	{ "seArr;", "\xe2\x87\x98" }, { "searhk;", "\xe2\xa4\xa5" }, { "searr;", "\xe2\x86\x98" },
	{ "searrow;", "\xe2\x86\x98" }, { "sect", "\xc2\xa7" }, { "sect;", "\xc2\xa7" },
	{ "semi;", "\x3b" }, { "seswar;", "\xe2\xa4\xa9" }, { "setminus;", "\xe2\x88\x96" },
	{ "setmn;", "\xe2\x88\x96" }, { "sext;", "\xe2\x9c\xb6" }, { "sfr;", "\xf0\x9d\x94\xb0" },
	{ "sfrown;", "\xe2\x8c\xa2" }, { "sharp;", "\xe2\x99\xaf" }, { "shchcy;", "\xd1\x89" },
	{ "shcy;", "\xd1\x88" }, { "shortmid;", "\xe2\x88\xa3" },
	{ "shortparallel;", "\xe2\x88\xa5" }, { "shy", "\xc2\xad" }, { "shy;", "\xc2\xad" },
	{ "sigma;", "\xcf\x83" }, { "sigmaf;", "\xcf\x82" }, { "sigmav;", "\xcf\x82" },
	{ "sim;", "\xe2\x88\xbc" }, { "simdot;", "\xe2\xa9\xaa" }, { "sime;", "\xe2\x89\x83" },
	{ "simeq;", "\xe2\x89\x83" }, { "simg;", "\xe2\xaa\x9e" }, { "simgE;", "\xe2\xaa\xa0" },
	{ "siml;", "\xe2\xaa\x9d" }, { "simlE;", "\xe2\xaa\x9f" }, { "simne;", "\xe2\x89\x86" },
	{ "simplus;", "\xe2\xa8\xa4" }, { "simrarr;", "\xe2\xa5\xb2" },
	{ "slarr;", "\xe2\x86\x90" }, { "smallsetminus;", "\xe2\x88\x96" },
	{ "smashp;", "\xe2\xa8\xb3" }, { "smeparsl;", "\xe2\xa7\xa4" },
	{ "smid;", "\xe2\x88\xa3" }, { "smile;", "\xe2\x8c\xa3" }, { "smt;", "\xe2\xaa\xaa" },
	{ "smte;", "\xe2\xaa\xac" }, { "smtes;", "\xe2\xaa\xac\xef\xb8\x80" },
	{ "softcy;", "\xd1\x8c" }, { "sol;", "\x2f" }, { "solb;", "\xe2\xa7\x84" },
	{ "solbar;", "\xe2\x8c\xbf" }, { "sopf;", "\xf0\x9d\x95\xa4" },
	{ "spades;", "\xe2\x99\xa0" }, { "spadesuit;", "\xe2\x99\xa0" },
	{ "spar;", "\xe2\x88\xa5" }, { "sqcap;", "\xe2\x8a\x93" },
	{ "sqcaps;", "\xe2\x8a\x93\xef\xb8\x80" }, { "sqcup;", "\xe2\x8a\x94" },
	{ "sqcups;", "\xe2\x8a\x94\xef\xb8\x80" }, { "sqsub;", "\xe2\x8a\x8f" },
	{ "sqsube;", "\xe2\x8a\x91" }, { "sqsubset;", "\xe2\x8a\x8f" },
	{ "sqsubseteq;", "\xe2\x8a\x91" }, { "sqsup;", "\xe2\x8a\x90" },
	{ "sqsupe;", "\xe2\x8a\x92" }, { "sqsupset;", "\xe2\x8a\x90" },
	{ "sqsupseteq;", "\xe2\x8a\x92" }, { "squ;", "\xe2\x96\xa1" },
	{ "square;", "\xe2\x96\xa1" }, { "squarf;", "\xe2\x96\xaa" }, { "squf;", "\xe2\x96\xaa" },
	{ "srarr;", "\xe2\x86\x92" }, { "sscr;", "\xf0\x9d\x93\x88" },
	{ "ssetmn;", "\xe2\x88\x96" }, { "ssmile;", "\xe2\x8c\xa3" },
	{ "sstarf;", "\xe2\x8b\x86" }, { "star;", "\xe2\x98\x86" }, { "starf;", "\xe2\x98\x85" },
	{ "straightepsilon;", "\xcf\xb5" }, { "straightphi;", "\xcf\x95" },
	{ "strns;", "\xc2\xaf" }, { "sub;", "\xe2\x8a\x82" }, { "subE;", "\xe2\xab\x85" },
	{ "subdot;", "\xe2\xaa\xbd" }, { "sube;", "\xe2\x8a\x86" }, { "subedot;", "\xe2\xab\x83" },
	{ "submult;", "\xe2\xab\x81" }, { "subnE;", "\xe2\xab\x8b" }, { "subne;", "\xe2\x8a\x8a" },
	{ "subplus;", "\xe2\xaa\xbf" }, { "subrarr;", "\xe2\xa5\xb9" },
	{ "subset;", "\xe2\x8a\x82" }, { "subseteq;", "\xe2\x8a\x86" },
	{ "subseteqq;", "\xe2\xab\x85" }, { "subsetneq;", "\xe2\x8a\x8a" },
	{ "subsetneqq;", "\xe2\xab\x8b" }, { "subsim;", "\xe2\xab\x87" },
	{ "subsub;", "\xe2\xab\x95" }, { "subsup;", "\xe2\xab\x93" }, { "succ;", "\xe2\x89\xbb" },
	{ "succapprox;", "\xe2\xaa\xb8" }, { "succcurlyeq;", "\xe2\x89\xbd" },
	{ "succeq;", "\xe2\xaa\xb0" }, { "succnapprox;", "\xe2\xaa\xba" },
	{ "succneqq;", "\xe2\xaa\xb6" }, { "succnsim;", "\xe2\x8b\xa9" },
	{ "succsim;", "\xe2\x89\xbf" }, { "sum;", "\xe2\x88\x91" }, { "sung;", "\xe2\x99\xaa" },
	{ "sup1", "\xc2\xb9" }, { "sup1;", "\xc2\xb9" }, { "sup2", "\xc2\xb2" },
	{ "sup2;", "\xc2\xb2" }, { "sup3", "\xc2\xb3" }, { "sup3;", "\xc2\xb3" },
	{ "sup;", "\xe2\x8a\x83" }, { "supE;", "\xe2\xab\x86" }, { "supdot;", "\xe2\xaa\xbe" },
	{ "supdsub;", "\xe2\xab\x98" }, { "supe;", "\xe2\x8a\x87" },
	{ "supedot;", "\xe2\xab\x84" }, { "suphsol;", "\xe2\x9f\x89" },
	{ "suphsub;", "\xe2\xab\x97" }, { "suplarr;", "\xe2\xa5\xbb" },
	{ "supmult;", "\xe2\xab\x82" }, { "supnE;", "\xe2\xab\x8c" }, { "supne;", "\xe2\x8a\x8b" },
	{ "supplus;", "\xe2\xab\x80" }, { "supset;", "\xe2\x8a\x83" },
	{ "supseteq;", "\xe2\x8a\x87" }, { "supseteqq;", "\xe2\xab\x86" },
	{ "supsetneq;", "\xe2\x8a\x8b" }, { "supsetneqq;", "\xe2\xab\x8c" },
	{ "supsim;", "\xe2\xab\x88" }, { "supsub;", "\xe2\xab\x94" },
	{ "supsup;", "\xe2\xab\x96" }, { "swArr;", "\xe2\x87\x99" }, { "swarhk;", "\xe2\xa4\xa6" },
	{ "swarr;", "\xe2\x86\x99" }, { "swarrow;", "\xe2\x86\x99" },
	{ "swnwar;", "\xe2\xa4\xaa" }, { "szlig", "\xc3\x9f" }, { "szlig;", "\xc3\x9f" },
	{ "target;", "\xe2\x8c\x96" }, { "tau;", "\xcf\x84" }, { "tbrk;", "\xe2\x8e\xb4" },
	{ "tcaron;", "\xc5\xa5" }, { "tcedil;", "\xc5\xa3" }, { "tcy;", "\xd1\x82" },
	{ "tdot;", "\xe2\x83\x9b" }, { "telrec;", "\xe2\x8c\x95" }, { "tfr;", "\xf0\x9d\x94\xb1" },
	{ "there4;", "\xe2\x88\xb4" }, { "therefore;", "\xe2\x88\xb4" }, { "theta;", "\xce\xb8" },
	{ "thetasym;", "\xcf\x91" }, { "thetav;", "\xcf\x91" }, { "thickapprox;", "\xe2\x89\x88" },
	{ "thicksim;", "\xe2\x88\xbc" }, { "thinsp;", "\xe2\x80\x89" },
	{ "thkap;", "\xe2\x89\x88" }, { "thksim;", "\xe2\x88\xbc" }, { "thorn", "\xc3\xbe" },
	{ "thorn;", "\xc3\xbe" }, { "tilde;", "\xcb\x9c" }, { "times", "\xc3\x97" },
	{ "times;", "\xc3\x97" }, { "timesb;", "\xe2\x8a\xa0" }, { "timesbar;", "\xe2\xa8\xb1" },
	{ "timesd;", "\xe2\xa8\xb0" }, { "tint;", "\xe2\x88\xad" }, { "toea;", "\xe2\xa4\xa8" },
	{ "top;", "\xe2\x8a\xa4" }, { "topbot;", "\xe2\x8c\xb6" }, { "topcir;", "\xe2\xab\xb1" },
	{ "topf;", "\xf0\x9d\x95\xa5" }, { "topfork;", "\xe2\xab\x9a" },
	{ "tosa;", "\xe2\xa4\xa9" }, { "tprime;", "\xe2\x80\xb4" }, { "trade;", "\xe2\x84\xa2" },
	{ "triangle;", "\xe2\x96\xb5" }, { "triangledown;", "\xe2\x96\xbf" },
	{ "triangleleft;", "\xe2\x97\x83" }, { "trianglelefteq;", "\xe2\x8a\xb4" },
	{ "triangleq;", "\xe2\x89\x9c" }, { "triangleright;", "\xe2\x96\xb9" },
	{ "trianglerighteq;", "\xe2\x8a\xb5" }, { "tridot;", "\xe2\x97\xac" },
	{ "trie;", "\xe2\x89\x9c" }, { "triminus;", "\xe2\xa8\xba" },
	{ "triplus;", "\xe2\xa8\xb9" }, { "trisb;", "\xe2\xa7\x8d" },
	{ "tritime;", "\xe2\xa8\xbb" }, { "trpezium;", "\xe2\x8f\xa2" },
	{ "tscr;", "\xf0\x9d\x93\x89" }, { "tscy;", "\xd1\x86" }, { "tshcy;", "\xd1\x9b" },
	{ "tstrok;", "\xc5\xa7" }, { "twixt;", "\xe2\x89\xac" },
	{ "twoheadleftarrow;", "\xe2\x86\x9e" }, { "twoheadrightarrow;", "\xe2\x86\xa0" },
	{ "uArr;", "\xe2\x87\x91" }, { "uHar;", "\xe2\xa5\xa3" }, { "uacute", "\xc3\xba" },
	{ "uacute;", "\xc3\xba" }, { "uarr;", "\xe2\x86\x91" }, { "ubrcy;", "\xd1\x9e" },
	{ "ubreve;", "\xc5\xad" }, { "ucirc", "\xc3\xbb" }, { "ucirc;", "\xc3\xbb" },
	{ "ucy;", "\xd1\x83" }, { "udarr;", "\xe2\x87\x85" }, { "udblac;", "\xc5\xb1" },
	{ "udhar;", "\xe2\xa5\xae" }, { "ufisht;", "\xe2\xa5\xbe" },
	{ "ufr;", "\xf0\x9d\x94\xb2" }, { "ugrave", "\xc3\xb9" }, { "ugrave;", "\xc3\xb9" },
	{ "uharl;", "\xe2\x86\xbf" }, { "uharr;", "\xe2\x86\xbe" }, { "uhblk;", "\xe2\x96\x80" },
	{ "ulcorn;", "\xe2\x8c\x9c" }, { "ulcorner;", "\xe2\x8c\x9c" },
	{ "ulcrop;", "\xe2\x8c\x8f" }, { "ultri;", "\xe2\x97\xb8" }, { "umacr;", "\xc5\xab" },
	{ "uml", "\xc2\xa8" }, { "uml;", "\xc2\xa8" }, { "uogon;", "\xc5\xb3" },
	{ "uopf;", "\xf0\x9d\x95\xa6" }, { "uparrow;", "\xe2\x86\x91" },
	{ "updownarrow;", "\xe2\x86\x95" }, { "upharpoonleft;", "\xe2\x86\xbf" },
	{ "upharpoonright;", "\xe2\x86\xbe" }, { "uplus;", "\xe2\x8a\x8e" },
	{ "upsi;", "\xcf\x85" }, { "upsih;", "\xcf\x92" }, { "upsilon;", "\xcf\x85" },
	{ "upuparrows;", "\xe2\x87\x88" }, { "urcorn;", "\xe2\x8c\x9d" },
	{ "urcorner;", "\xe2\x8c\x9d" }, { "urcrop;", "\xe2\x8c\x8e" }, { "uring;", "\xc5\xaf" },
	{ "urtri;", "\xe2\x97\xb9" }, { "uscr;", "\xf0\x9d\x93\x8a" },
	{ "utdot;", "\xe2\x8b\xb0" }, { "utilde;", "\xc5\xa9" }, { "utri;", "\xe2\x96\xb5" },
	{ "utrif;", "\xe2\x96\xb4" }, { "uuarr;", "\xe2\x87\x88" }, { "uuml", "\xc3\xbc" },
	{ "uuml;", "\xc3\xbc" }, { "uwangle;", "\xe2\xa6\xa7" }, { "vArr;", "\xe2\x87\x95" },
	{ "vBar;", "\xe2\xab\xa8" }, { "vBarv;", "\xe2\xab\xa9" }, { "vDash;", "\xe2\x8a\xa8" },
	{ "vangrt;", "\xe2\xa6\x9c" }, { "varepsilon;", "\xcf\xb5" }, { "varkappa;", "\xcf\xb0" },
	{ "varnothing;", "\xe2\x88\x85" }, { "varphi;", "\xcf\x95" }, { "varpi;", "\xcf\x96" },
	{ "varpropto;", "\xe2\x88\x9d" }, { "varr;", "\xe2\x86\x95" }, { "varrho;", "\xcf\xb1" },
	{ "varsigma;", "\xcf\x82" }, { "varsubsetneq;", "\xe2\x8a\x8a\xef\xb8\x80" },
	{ "varsubsetneqq;", "\xe2\xab\x8b\xef\xb8\x80" },
	{ "varsupsetneq;", "\xe2\x8a\x8b\xef\xb8\x80" },
	{ "varsupsetneqq;", "\xe2\xab\x8c\xef\xb8\x80" }, { "vartheta;", "\xcf\x91" },
	{ "vartriangleleft;", "\xe2\x8a\xb2" }, { "vartriangleright;", "\xe2\x8a\xb3" },
	{ "vcy;", "\xd0\xb2" }, { "vdash;", "\xe2\x8a\xa2" }, { "vee;", "\xe2\x88\xa8" },
	{ "veebar;", "\xe2\x8a\xbb" }, { "veeeq;", "\xe2\x89\x9a" }, { "vellip;", "\xe2\x8b\xae" },
	{ "verbar;", "\x7c" }, { "vert;", "\x7c" }, { "vfr;", "\xf0\x9d\x94\xb3" },
	{ "vltri;", "\xe2\x8a\xb2" }, { "vnsub;", "\xe2\x8a\x82\xe2\x83\x92" },
	{ "vnsup;", "\xe2\x8a\x83\xe2\x83\x92" }, { "vopf;", "\xf0\x9d\x95\xa7" },
	{ "vprop;", "\xe2\x88\x9d" }, { "vrtri;", "\xe2\x8a\xb3" },
	{ "vscr;", "\xf0\x9d\x93\x8b" }, { "vsubnE;", "\xe2\xab\x8b\xef\xb8\x80" },
	{ "vsubne;", "\xe2\x8a\x8a\xef\xb8\x80" }, { "vsupnE;", "\xe2\xab\x8c\xef\xb8\x80" },
	{ "vsupne;", "\xe2\x8a\x8b\xef\xb8\x80" }, { "vzigzag;", "\xe2\xa6\x9a" },
	{ "wcirc;", "\xc5\xb5" }, { "wedbar;", "\xe2\xa9\x9f" }, { "wedge;", "\xe2\x88\xa7" },
	{ "wedgeq;", "\xe2\x89\x99" }, { "weierp;", "\xe2\x84\x98" },
	{ "wfr;", "\xf0\x9d\x94\xb4" }, { "wopf;", "\xf0\x9d\x95\xa8" }, { "wp;", "\xe2\x84\x98" },
	{ "wr;", "\xe2\x89\x80" }, { "wreath;", "\xe2\x89\x80" }, { "wscr;", "\xf0\x9d\x93\x8c" },
	{ "xcap;", "\xe2\x8b\x82" }, { "xcirc;", "\xe2\x97\xaf" }, { "xcup;", "\xe2\x8b\x83" },
	{ "xdtri;", "\xe2\x96\xbd" }, { "xfr;", "\xf0\x9d\x94\xb5" }, { "xhArr;", "\xe2\x9f\xba" },
	{ "xharr;", "\xe2\x9f\xb7" }, { "xi;", "\xce\xbe" }, { "xlArr;", "\xe2\x9f\xb8" },
	{ "xlarr;", "\xe2\x9f\xb5" }, { "xmap;", "\xe2\x9f\xbc" }, { "xnis;", "\xe2\x8b\xbb" },
	{ "xodot;", "\xe2\xa8\x80" }, { "xopf;", "\xf0\x9d\x95\xa9" },
	{ "xoplus;", "\xe2\xa8\x81" }, { "xotime;", "\xe2\xa8\x82" }, { "xrArr;", "\xe2\x9f\xb9" },
	{ "xrarr;", "\xe2\x9f\xb6" }, { "xscr;", "\xf0\x9d\x93\x8d" },
	{ "xsqcup;", "\xe2\xa8\x86" }, { "xuplus;", "\xe2\xa8\x84" }, { "xutri;", "\xe2\x96\xb3" },
	{ "xvee;", "\xe2\x8b\x81" }, { "xwedge;", "\xe2\x8b\x80" }, { "yacute", "\xc3\xbd" },
	{ "yacute;", "\xc3\xbd" }, { "yacy;", "\xd1\x8f" }, { "ycirc;", "\xc5\xb7" },
	{ "ycy;", "\xd1\x8b" }, { "yen", "\xc2\xa5" }, { "yen;", "\xc2\xa5" },
	{ "yfr;", "\xf0\x9d\x94\xb6" }, { "yicy;", "\xd1\x97" }, { "yopf;", "\xf0\x9d\x95\xaa" },
	{ "yscr;", "\xf0\x9d\x93\x8e" }, { "yucy;", "\xd1\x8e" }, { "yuml", "\xc3\xbf" },
	{ "yuml;", "\xc3\xbf" }, { "zacute;", "\xc5\xba" }, { "zcaron;", "\xc5\xbe" },
	{ "zcy;", "\xd0\xb7" }, { "zdot;", "\xc5\xbc" }, { "zeetrf;", "\xe2\x84\xa8" },
	{ "zeta;", "\xce\xb6" }, { "zfr;", "\xf0\x9d\x94\xb7" }, { "zhcy;", "\xd0\xb6" },
	{ "zigrarr;", "\xe2\x87\x9d" }, { "zopf;", "\xf0\x9d\x95\xab" },
	{ "zscr;", "\xf0\x9d\x93\x8f" }, { "zwj;", "\xe2\x80\x8d" }, { "zwnj;", "\xe2\x80\x8c" },
};

static int entity_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct entity *)elem)->name);
}

static const char *entity_find(const char *name)
{
	const struct entity *e = bsearch(name, entities, ARRAY_SIZE(entities),
					 sizeof(entities[0]), entity_cmp);
	return e ? e->utf8 : NULL;
}

/* HTML5 "numeric character reference end state": C1 bytes are read as
 * windows-1252 (what pages mean by &#150;), 0x80/0x8D/… stay. */
static const uint16_t c1_1252[32] = {
	0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
	0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
};

static size_t utf8_put(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Decode the reference at s[0] == '&'.  Returns the bytes consumed (0: not
 * a reference, the '&' is literal) and puts the UTF-8 in out (<= 8 bytes). */
static size_t entity_decode(const char *s, size_t len, bool in_attr, char *out, size_t *outlen)
{
	size_t i = 1, k;

	if (len < 2)
		return 0;
	if (s[1] == '#') {
		uint32_t cp = 0;
		bool hex = false, any = false;
		i = 2;
		if (i < len && (s[i] | 32) == 'x') {
			hex = true;
			i++;
		}
		for (; i < len; i++) {
			unsigned char c = (unsigned char)s[i];
			unsigned d;
			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (hex && (c | 32) >= 'a' && (c | 32) <= 'f')
				d = (c | 32) - 'a' + 10;
			else
				break;
			any = true;
			/* Saturate: &#3000000000; must not wrap into range
			 * (google/gumbo-parser#328). */
			if (cp <= 0x10FFFF)
				cp = cp * (hex ? 16 : 10) + d;
		}
		if (!any)
			return 0;
		if (i < len && s[i] == ';')
			i++;
		if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			cp = 0xFFFD;
		else if (cp >= 0x80 && cp <= 0x9F)
			cp = c1_1252[cp - 0x80];
		*outlen = utf8_put(cp, out);
		return i;
	}
	{
		char name[40];
		const char *v;
		size_t n;

		while (i < len && i < 33 && is_alnum((unsigned char)s[i]))
			i++;
		n = i - 1;
		if (!n)
			return 0;
		if (i < len && s[i] == ';') {
			memcpy(name, s + 1, n);
			name[n] = ';';
			name[n + 1] = '\0';
			if ((v = entity_find(name))) {
				*outlen = strlen(v);
				memcpy(out, v, *outlen);
				return i + 1;
			}
		}
		/* No ';': the longest legacy name that prefixes the run (&copy2024,
		 * &notit).  Legacy names are at most 6 letters. */
		for (k = n < 6 ? n : 6; k >= 2; k--) {
			memcpy(name, s + 1, k);
			name[k] = '\0';
			if (!(v = entity_find(name)))
				continue;
			/* In attributes "&copy=2" and "&copyx" stay literal: they
			 * are usually query strings (HTML5 §13.2.5.73). */
			if (in_attr && 1 + k < len &&
			    (s[1 + k] == '=' || is_alnum((unsigned char)s[1 + k])))
				return 0;
			*outlen = strlen(v);
			memcpy(out, v, *outlen);
			return 1 + k;
		}
		return 0;
	}
}

/* Stream s through the decoder to emit(); stops when emit returns -1. */
typedef int (*emit_fn)(void *ctx, const char *s, size_t n);

static int decode_stream(const char *s, size_t len, bool in_attr, emit_fn emit, void *ctx)
{
	size_t i = 0, run = 0;

	while (i < len) {
		const char *amp = memchr(s + i, '&', len - i);
		char tmp[8];
		size_t used, tlen = 0;

		if (!amp)
			break;
		i = (size_t)(amp - s);
		used = entity_decode(s + i, len - i, in_attr, tmp, &tlen);
		if (!used) {
			i++;
			continue;
		}
		if (emit(ctx, s + run, i - run) || emit(ctx, tmp, tlen))
			return -1;
		i += used;
		run = i;
	}
	return emit(ctx, s + run, len - run);
}

/* Append to a buf, cut on a UTF-8 boundary at its ceiling. */
static int add_capped(struct buf *b, const char *s, size_t n)
{
	size_t room;

	if (!buf_add(b, s, n))
		return 0;
	room = b->max > b->len ? b->max - b->len : 0;
	(void)buf_add(b, s, utf8_cut(s, n, room));
	return -1;
}

/* Decoded attribute values: NUL becomes U+FFFD as in HTML5, so that the
 * value survives as a C string. */
static int emit_buf(void *ctx, const char *s, size_t n)
{
	struct buf *b = ctx;
	const char *z;

	while ((z = memchr(s, '\0', n))) {
		if (add_capped(b, s, (size_t)(z - s)) || add_capped(b, "\xEF\xBF\xBD", 3))
			return -1;
		n -= (size_t)(z - s) + 1;
		s = z + 1;
	}
	return add_capped(b, s, n);
}

int html_decode_entities(const char *s, size_t len, bool in_attr, struct buf *out)
{
	return decode_stream(s, len, in_attr, emit_buf, out);
}

/* --- text sinks: whitespace collapsing, breaks, caps ------------------------ */

enum brk { BRK_NONE, BRK_SPACE, BRK_LINE };

struct sink {
	struct buf *b;
	enum brk pending; /* separator owed before the next visible byte */
	bool full;
	bool *truncated;  /* the doc's flag */
};

static void sink_break(struct sink *k, enum brk brk)
{
	if (brk > k->pending)
		k->pending = brk;
}

/* A byte that is part of a word: not ASCII whitespace, a C0 control or DEL.
 * (0xC2 may start U+00A0, which the caller checks with is_nbsp().) */
static inline bool is_word_byte(unsigned char c)
{
	return c > ' ' && c != 0x7F;
}

/* 1 for the bytes that end a run of word bytes in sink_add(): not
 * is_word_byte(), and 0xC2 (which may start U+00A0).  Built once. */
static unsigned char text_stop[256];
/* The byte, A-Z lowered (tag names).  Built once. */
static unsigned char ascii_lower[256];

/* U+00A0 (UTF-8 C2 A0) at p[i] of n bytes. */
static inline bool is_nbsp(const unsigned char *p, size_t i, size_t n)
{
	return p[i] == 0xC2 && i + 1 < n && p[i + 1] == 0xA0;
}

#ifdef __SSE2__
/* The bytes of x that text_stop[] marks, as 0xFF lanes. */
static inline __m128i stop_lanes(__m128i x)
{
	const __m128i sp = _mm_set1_epi8(' '), del = _mm_set1_epi8(0x7F);
	const __m128i c2 = _mm_set1_epi8((char)0xC2);

	return _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, sp), x),
			    _mm_or_si128(_mm_cmpeq_epi8(x, del), _mm_cmpeq_epi8(x, c2)));
}
#endif

/* The end of the run of word bytes at p[i] (the first byte text_stop[]
 * marks, or n).  With SSE2, 16 bytes at a time, and a space followed by a
 * byte text_stop[] does not mark is taken as sink_add() would take it. */
static inline size_t word_run(const unsigned char *p, size_t i, size_t n)
{
#ifdef __SSE2__
	const __m128i sp = _mm_set1_epi8(' ');

	for (; i + 17 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		__m128i next = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1));
		/* A space before a word byte continues the run. */
		__m128i ok_space = _mm_andnot_si128(stop_lanes(next), _mm_cmpeq_epi8(v, sp));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(ok_space, stop_lanes(v)));

		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	while (i < n && !text_stop[p[i]])
		i++;
	return i;
}

/* Append text, collapsing whitespace (ASCII, U+00A0, C0 controls) to one
 * separator; newline_breaks makes a line end a BRK_LINE (text/plain).  Cuts
 * on a UTF-8 boundary at the ceiling.  A run of words separated by single
 * ASCII spaces is already collapsed: it goes in with one append. */
static void sink_add(struct sink *k, const char *s, size_t n, bool newline_breaks)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n && !k->full) {
		size_t run;
		unsigned char c = p[i];

		if (!is_word_byte(c)) {
			/* NUL is dropped (HTML5 ignores it in text); other controls
			 * separate words like spaces. */
			if (c)
				sink_break(k, c == '\n' && newline_breaks ? BRK_LINE : BRK_SPACE);
			i++;
			continue;
		}
		if (is_nbsp(p, i, n)) {
			sink_break(k, BRK_SPACE);
			i += 2;
			continue;
		}
		run = i;
		for (;;) {
			/* Word bytes; a 0xC2 is one unless it starts U+00A0. */
			i = word_run(p, i, n);
			if (i < n && p[i] == 0xC2 && !is_nbsp(p, i, n)) {
				i++;
				continue;
			}
			/* One space before another word: what collapsing writes. */
			if (i + 1 < n && p[i] == ' ' && is_word_byte(p[i + 1]) &&
			    !is_nbsp(p, i + 1, n))
				i++;
			else
				break;
		}
		if (k->pending && k->b->len) {
			if (buf_addc(k->b, k->pending == BRK_LINE ? '\n' : ' ')) {
				k->full = true;
				break;
			}
		}
		k->pending = BRK_NONE;
		if (add_capped(k->b, s + run, i - run))
			k->full = true;
	}
	if (k->full && k->truncated)
		*k->truncated = true;
}

struct text_ctx {
	struct sink *k[2]; /* body (or title) and anchor; either may be NULL */
	bool newline_breaks;
};

static int emit_text(void *ctx, const char *s, size_t n)
{
	struct text_ctx *t = ctx;
	int j;

	for (j = 0; j < 2; j++)
		if (t->k[j])
			sink_add(t->k[j], s, n, t->newline_breaks);
	return 0;
}

/* --- tags ------------------------------------------------------------------ */

enum tag_id {
	T_OTHER,  /* unknown: breaks words with a space */
	T_INLINE, /* no word break */
	T_BLOCK,  /* breaks with a newline */
	T_A, T_AREA, T_BASE, T_BR, T_FRAME, T_IFRAME, T_IMG, T_LINK, T_MATH, T_META,
	T_PLAINTEXT, T_SCRIPT, T_STYLE, T_SVG, T_TEXTAREA, T_TITLE, T_XMP,
};

struct tag_def {
	const char *name;
	enum tag_id id;
};

/* Sorted by strcmp for bsearch. */
static const struct tag_def tag_defs[] = {
	{ "a", T_A }, { "abbr", T_INLINE }, { "acronym", T_INLINE }, { "address", T_BLOCK },
	{ "area", T_AREA }, { "article", T_BLOCK }, { "aside", T_BLOCK }, { "b", T_INLINE },
	{ "base", T_BASE }, { "bdi", T_INLINE }, { "bdo", T_INLINE }, { "big", T_INLINE },
	{ "blink", T_INLINE }, { "blockquote", T_BLOCK }, { "body", T_BLOCK }, { "br", T_BR },
	{ "caption", T_BLOCK }, { "center", T_BLOCK }, { "cite", T_INLINE }, { "code", T_INLINE },
	{ "data", T_INLINE }, { "dd", T_BLOCK }, { "del", T_INLINE }, { "details", T_BLOCK },
	{ "dfn", T_INLINE }, { "dialog", T_BLOCK }, { "dir", T_BLOCK }, { "div", T_BLOCK },
	{ "dl", T_BLOCK }, { "dt", T_BLOCK }, { "em", T_INLINE }, { "fieldset", T_BLOCK },
	{ "figcaption", T_BLOCK }, { "figure", T_BLOCK }, { "font", T_INLINE },
	{ "footer", T_BLOCK }, { "form", T_BLOCK }, { "frame", T_FRAME }, { "frameset", T_BLOCK },
	{ "h1", T_BLOCK }, { "h2", T_BLOCK }, { "h3", T_BLOCK }, { "h4", T_BLOCK },
	{ "h5", T_BLOCK }, { "h6", T_BLOCK }, { "head", T_BLOCK }, { "header", T_BLOCK },
	{ "hgroup", T_BLOCK }, { "hr", T_BLOCK }, { "html", T_BLOCK }, { "i", T_INLINE },
	{ "iframe", T_IFRAME }, { "img", T_IMG }, { "ins", T_INLINE }, { "kbd", T_INLINE },
	{ "label", T_INLINE }, { "legend", T_BLOCK }, { "li", T_BLOCK }, { "link", T_LINK },
	{ "main", T_BLOCK }, { "mark", T_INLINE }, { "math", T_MATH }, { "menu", T_BLOCK },
	{ "meta", T_META }, { "nav", T_BLOCK }, { "nobr", T_INLINE }, { "ol", T_BLOCK },
	{ "optgroup", T_BLOCK }, { "option", T_BLOCK }, { "p", T_BLOCK },
	{ "plaintext", T_PLAINTEXT }, { "pre", T_BLOCK }, { "q", T_INLINE }, { "rb", T_INLINE },
	{ "rp", T_INLINE }, { "rt", T_INLINE }, { "rtc", T_INLINE }, { "ruby", T_INLINE },
	{ "s", T_INLINE }, { "samp", T_INLINE }, { "script", T_SCRIPT }, { "section", T_BLOCK },
	{ "small", T_INLINE }, { "span", T_INLINE }, { "strike", T_INLINE },
	{ "strong", T_INLINE }, { "style", T_STYLE }, { "sub", T_INLINE }, { "summary", T_BLOCK },
	{ "sup", T_INLINE }, { "svg", T_SVG }, { "table", T_BLOCK }, { "tbody", T_BLOCK },
	{ "td", T_OTHER }, { "textarea", T_TEXTAREA }, { "tfoot", T_BLOCK }, { "th", T_OTHER },
	{ "thead", T_BLOCK }, { "time", T_INLINE }, { "title", T_TITLE }, { "tr", T_BLOCK },
	{ "tt", T_INLINE }, { "u", T_INLINE }, { "ul", T_BLOCK }, { "var", T_INLINE },
	{ "wbr", T_INLINE }, { "xmp", T_XMP },
};

/* The tags by name: names (at most 15 bytes, lower case) packed into two
 * 64-bit words, zero-padded, in an open-addressing table built once
 * (tables_build()).  A tag is looked up per '<'. */
#define TAG_SLOTS 256
static struct tag_slot {
	uint64_t k0, k1;
	const struct tag_def *def;   /* NULL: empty */
} tag_tab[TAG_SLOTS];
static pthread_once_t tag_once = PTHREAD_ONCE_INIT;

static size_t tag_hash(uint64_t k0, uint64_t k1)
{
	return (size_t)(((k0 ^ (k1 * 0xC2B2AE3D27D4EB4Full)) * 0x9E3779B97F4A7C15ull) >> 56);
}

/* The slot of the tag whose name (16 bytes: lower case, zero-padded) is k,
 * or the empty slot where it would go.  Read-only: the threads share it. */
static size_t tag_probe(const uint64_t k[2])
{
	size_t h;

	for (h = tag_hash(k[0], k[1]); tag_tab[h].def; h = (h + 1) % TAG_SLOTS)
		if (tag_tab[h].k0 == k[0] && tag_tab[h].k1 == k[1])
			break;
	return h;
}

static void tables_build(void)
{
	for (unsigned c = 0; c < 256; c++) {
		text_stop[c] = !is_word_byte((unsigned char)c) || c == 0xC2;
		ascii_lower[c] = (unsigned char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	for (size_t i = 0; i < ARRAY_SIZE(tag_defs); i++) {
		uint64_t k[2] = { 0, 0 };

		memcpy(k, tag_defs[i].name, strlen(tag_defs[i].name));
		tag_tab[tag_probe(k)] = (struct tag_slot){ k[0], k[1], &tag_defs[i] };
	}
}

/* The tag named name (16 bytes: lower case, zero-padded), or NULL. */
static const struct tag_def *tag_find(const char name[16])
{
	uint64_t k[2];

	memcpy(k, name, sizeof(k));
	return tag_tab[tag_probe(k)].def;
}

/* The attributes anything here looks at; the rest are skipped unread. */
enum attr_id { A_HREF, A_SRC, A_NAME, A_CONTENT, A_HTTP_EQUIV, A_REL, A_ALT, A_TYPE, A_COUNT };
#define ATTR_NAME(s) { s, sizeof(s) - 1 }
static const struct {
	const char *name;
	size_t len;
} attr_names[A_COUNT] = {
	ATTR_NAME("href"), ATTR_NAME("src"), ATTR_NAME("name"), ATTR_NAME("content"),
	ATTR_NAME("http-equiv"), ATTR_NAME("rel"), ATTR_NAME("alt"), ATTR_NAME("type"),
};
#undef ATTR_NAME
/* Bit n set: some attribute of attr_names is n bytes long. */
#define ATTR_LENGTHS (1u << 3 | 1u << 4 | 1u << 7 | 1u << 10)

struct span {
	const char *p; /* raw value in the input; NULL if the attribute is absent */
	size_t n;
};

struct tag {
	enum tag_id id;
	bool end;
	bool self_closing;
	struct span attr[A_COUNT];
};

/* Raw text end tags searched for (script, style, title, …): the answer of
 * the last search is remembered so that a page of a million unclosed
 * <title>s is not searched a million times (linear time). */
enum raw_kind { R_SCRIPT, R_STYLE, R_TITLE, R_TEXTAREA, R_XMP, R_IFRAME, R_COUNT };
static const char *const raw_names[R_COUNT] = {
	"script", "style", "title", "textarea", "xmp", "iframe",
};

struct raw_cache {
	bool valid;
	size_t from, at; /* a search from `from` found `at` (NONE: nothing) */
};

struct parser {
	const char *s;
	size_t len, pos;
	struct html_doc *doc;
	struct sink sec[SECTION_COUNT];
	struct sink anchor;
	struct buf anchor_buf;
	size_t anchor_link;  /* index of the open <a>'s link, NONE if none */
	bool in_anchor;
	bool noindex_udm;    /* inside <!--UdmComment--> */
	bool noindex_yandex; /* inside <!--noindex--> */
	int foreign;         /* open svg/math, saturating at MAX_HTML_DEPTH */
	bool title_seen;
	bool desc_seen, kw_seen, refresh_seen;
	size_t links_cap;    /* allocated doc->links */
	size_t js_budget;    /* bytes of inline script still to search */
	struct buf attr;     /* one decoded attribute value */
	struct raw_cache raw[R_COUNT];
};

/* Parse the tag at ps->pos ('<' then a letter, or "</" then a letter).
 * HTML5 tag states: unquoted, quoted and missing values, '/' between
 * attributes, `href="x"; target=_new"` (an attribute named ";"), a '='
 * starting a name.  Returns 0 with ps->pos after '>', or -1 if the input
 * ends inside the tag (which HTML5 drops). */
static int parse_tag(struct parser *ps, struct tag *t)
{
	const char *s = ps->s;
	size_t len = ps->len, pos = ps->pos + 1, n = 0;
	char name[16] = { 0 };
	const struct tag_def *def;

	/* What the code reads: every attribute's pointer (a value's length
	 * only with its pointer). */
	t->id = T_OTHER;
	t->end = t->self_closing = false;
	for (size_t a = 0; a < A_COUNT; a++)
		t->attr[a].p = NULL;
	if (s[pos] == '/') {
		t->end = true;
		pos++;
	}
	while (pos < len && !(cclass[(unsigned char)s[pos]] & CC_NAME_END)) {
		unsigned char c = (unsigned char)s[pos++];
		if (n < sizeof(name) - 1)
			name[n++] = (char)ascii_lower[c];
		else
			n = sizeof(name); /* too long for any tag we know */
	}
	if (n < sizeof(name)) {
		def = n ? tag_find(name) : NULL;
		t->id = def ? def->id : T_OTHER;
	} else {
		t->id = T_OTHER;
	}
	for (;;) {
		size_t nstart, nlen, i;
		struct span v = { NULL, 0 };

		while (pos < len && (cclass[(unsigned char)s[pos]] & CC_WS))
			pos++;
		if (pos >= len)
			return -1;
		if (s[pos] == '>') {
			ps->pos = pos + 1;
			return 0;
		}
		if (s[pos] == '/') {
			pos++;
			if (pos < len && s[pos] == '>')
				t->self_closing = true;
			continue;
		}
		nstart = pos++;
		while (pos < len && !(cclass[(unsigned char)s[pos]] & CC_ATTR_END))
			pos++;
		nlen = pos - nstart;
		while (pos < len && (cclass[(unsigned char)s[pos]] & CC_WS))
			pos++;
		v.p = s + pos;
		if (pos < len && s[pos] == '=') {
			pos++;
			while (pos < len && (cclass[(unsigned char)s[pos]] & CC_WS))
				pos++;
			if (pos >= len)
				return -1;
			if (s[pos] == '"' || s[pos] == '\'') {
				const char *q = memchr(s + pos + 1, s[pos], len - pos - 1);
				if (!q)
					return -1;
				v.p = s + pos + 1;
				v.n = (size_t)(q - v.p);
				pos = (size_t)(q - s) + 1;
			} else {
				v.p = s + pos;
				while (pos < len && !(cclass[(unsigned char)s[pos]] & CC_VALUE_END))
					pos++;
				v.n = (size_t)(s + pos - v.p);
			}
		}
		/* Only names of the lengths of attr_names (3, 4, 7, 10) can
		 * match: class, id, title, ... cost one test. */
		if (t->end || nlen > 10 || !(ATTR_LENGTHS >> nlen & 1))
			continue;
		for (i = 0; i < A_COUNT; i++) {
			/* First occurrence wins (HTML5 drops duplicates). */
			if (!t->attr[i].p && attr_names[i].len == nlen &&
			    !ascii_ncasecmp(s + nstart, attr_names[i].name, nlen)) {
				t->attr[i] = v;
				break;
			}
		}
	}
}

/* The decoded value of an attribute, in ps->attr (borrowed until the next
 * call); NULL if absent.  Values are capped at MAX_HTML_ATTR_LEN. */
static const char *attr_value(struct parser *ps, const struct tag *t, enum attr_id id)
{
	const struct span *v = &t->attr[id];

	if (!v->p)
		return NULL;
	buf_reset(&ps->attr);
	if (html_decode_entities(v->p, v->n, true, &ps->attr))
		ps->doc->truncated = true;
	return buf_str(&ps->attr);
}

/* Trimmed copy of a decoded value; NULL if absent or empty. */
static char *attr_dup_trimmed(struct parser *ps, const struct tag *t, enum attr_id id)
{
	const char *v = attr_value(ps, t, id);
	size_t n;

	if (!v)
		return NULL;
	while (is_ws((unsigned char)*v))
		v++;
	n = strlen(v);
	while (n && is_ws((unsigned char)v[n - 1]))
		n--;
	return n ? xstrndup(v, n) : NULL;
}

/* Does a space-separated token list (rel, robots) hold word? */
static bool has_token(const char *list, const char *word, const char *seps)
{
	size_t wl = strlen(word);

	while (*list) {
		size_t n;
		list += strspn(list, seps);
		n = strcspn(list, seps);
		if (n == wl && !ascii_ncasecmp(list, word, n))
			return true;
		list += n;
	}
	return false;
}

static bool noindex(const struct parser *ps)
{
	return ps->noindex_udm || ps->noindex_yandex;
}

/* Body text, plus anchor text while an <a> is open. */
static void body_text(struct parser *ps, const char *s, size_t n, bool decode)
{
	struct text_ctx t = { { NULL, NULL }, false };

	if (noindex(ps))
		return;
	t.k[0] = &ps->sec[SECTION_BODY];
	if (ps->in_anchor)
		t.k[1] = &ps->anchor;
	if (decode)
		(void)decode_stream(s, n, false, emit_text, &t);
	else
		(void)emit_text(&t, s, n);
}

static void text_break(struct parser *ps, enum brk brk)
{
	sink_break(&ps->sec[SECTION_BODY], brk);
	/* Anchor text is one line. */
	if (ps->in_anchor)
		sink_break(&ps->anchor, brk == BRK_NONE ? BRK_NONE : BRK_SPACE);
}

/* --- links ------------------------------------------------------------------ */

/* A link URL as written: decoded, trimmed, with tabs and newlines removed
 * (the URL parser removes them anyway; hrefs wrapped over lines are common). */
static struct html_link *add_link(struct parser *ps, const struct tag *t, enum attr_id id,
				  enum html_link_kind kind)
{
	struct html_doc *doc = ps->doc;
	const char *v = attr_value(ps, t, id);
	struct html_link *l;
	size_t i, n = 0;
	char *url;

	if (!v)
		return NULL;
	url = xmalloc(strlen(v) + 1);
	while (is_ws((unsigned char)*v))
		v++;
	for (i = 0; v[i]; i++)
		if (v[i] != '\t' && v[i] != '\n' && v[i] != '\r')
			url[n++] = v[i];
	while (n && is_ws((unsigned char)url[n - 1]))
		n--;
	url[n] = '\0';
	if (!n) {
		free(url);
		return NULL;
	}
	if (n > MAX_URL_LEN || doc->nlinks >= MAX_HTML_LINKS) {
		free(url);
		doc->links_dropped++;
		doc->truncated = true;
		return NULL;
	}
	if (doc->nlinks == ps->links_cap) {
		ps->links_cap = ps->links_cap ? ps->links_cap * 2 : 16;
		if (ps->links_cap > MAX_HTML_LINKS)
			ps->links_cap = MAX_HTML_LINKS;
		doc->links = xrealloc(doc->links, ps->links_cap * sizeof(*doc->links));
	}
	l = &doc->links[doc->nlinks++];
	l->url = url;
	l->anchor = NULL;
	l->kind = kind;
	v = attr_value(ps, t, A_REL);
	l->nofollow = v && has_token(v, "nofollow", " \t\n\r\f");
	return l;
}

static void anchor_close(struct parser *ps)
{
	if (!ps->in_anchor)
		return;
	if (ps->anchor_link != NONE)
		ps->doc->links[ps->anchor_link].anchor = xstrdup(buf_str(&ps->anchor_buf));
	ps->in_anchor = false;
	ps->anchor_link = NONE;
}

static void anchor_open(struct parser *ps, const struct tag *t)
{
	anchor_close(ps);
	if (!add_link(ps, t, A_HREF, HTML_LINK_A))
		return;
	ps->in_anchor = true;
	ps->anchor_link = ps->doc->nlinks - 1;
	buf_reset(&ps->anchor_buf);
	ps->anchor.pending = BRK_NONE;
	ps->anchor.full = false;
}

/* --- META ------------------------------------------------------------------ */

/* HTML "shared declarative refresh steps", tolerant: `5; url=…`, `0;URL='…'`,
 * `5 , URL = "…"`, `url=…` without a delay (read as 0). */
static void parse_refresh(struct html_doc *doc, const char *c)
{
	const char *u;
	long delay = 0;
	size_t n;
	char q = 0;

	while (is_ws((unsigned char)*c))
		c++;
	while (*c >= '0' && *c <= '9') {
		if (delay < 100000000)
			delay = delay * 10 + (*c - '0');
		c++;
	}
	while (*c == '.' || (*c >= '0' && *c <= '9'))
		c++;
	while (is_ws((unsigned char)*c))
		c++;
	if (*c == ';' || *c == ',')
		c++;
	while (is_ws((unsigned char)*c))
		c++;
	u = c;
	if (!ascii_ncasecmp(c, "url", 3)) {
		const char *e = c + 3;
		while (is_ws((unsigned char)*e))
			e++;
		if (*e == '=') {
			u = e + 1;
			while (is_ws((unsigned char)*u))
				u++;
		}
	}
	if (*u == '"' || *u == '\'')
		q = *u++;
	n = q && strchr(u, q) ? (size_t)(strchr(u, q) - u) : strlen(u);
	while (n && is_ws((unsigned char)u[n - 1]))
		n--;
	if (!n || n > MAX_URL_LEN)
		return; /* a refresh of the page itself, or nonsense */
	doc->refresh_url = xstrndup(u, n);
	doc->refresh_delay = (int)delay;
}

/* Collapse whitespace of s into dst (capped at dstsz-1 on a UTF-8 boundary). */
static void collapse_into(char *dst, size_t dstsz, const char *s)
{
	struct buf b = BUF_INIT(dstsz - 1);
	struct sink k = { &b, BRK_NONE, false, NULL };

	sink_add(&k, s, strlen(s), false);
	strlcpy_(dst, buf_str(&b), dstsz);
	buf_free(&b);
}

static void do_meta(struct parser *ps, const struct tag *t)
{
	struct html_doc *doc = ps->doc;
	const char *v;
	char key[16];
	size_t n;
	char *content;

	if ((v = attr_value(ps, t, A_HTTP_EQUIV))) {
		while (is_ws((unsigned char)*v))
			v++;
		if (!ascii_ncasecmp(v, "refresh", 7) && !ps->refresh_seen) {
			ps->refresh_seen = true;
			if ((v = attr_value(ps, t, A_CONTENT)))
				parse_refresh(doc, v);
		}
		return;
	}
	if (!(v = attr_value(ps, t, A_NAME)))
		return;
	while (is_ws((unsigned char)*v))
		v++;
	for (n = 0; n < sizeof(key) - 1 && v[n] && !is_ws((unsigned char)v[n]); n++) {
		unsigned char c = (unsigned char)v[n];
		key[n] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	key[n] = '\0';
	if (!(v = attr_value(ps, t, A_CONTENT)))
		return;
	content = xstrdup(v);
	if (!strcmp(key, "robots")) {
		const char *seps = ", \t\n\r\f";
		if (has_token(content, "noindex", seps) || has_token(content, "none", seps))
			doc->robots |= HTML_ROBOTS_NOINDEX;
		if (has_token(content, "nofollow", seps) || has_token(content, "none", seps))
			doc->robots |= HTML_ROBOTS_NOFOLLOW;
	} else if (!strcmp(key, "description") || !strcmp(key, "keywords")) {
		bool desc = key[0] == 'd';
		struct sink *k = &ps->sec[desc ? SECTION_DESCRIPTION : SECTION_KEYWORDS];
		bool *seen = desc ? &ps->desc_seen : &ps->kw_seen;

		sink_break(k, BRK_LINE);
		sink_add(k, content, strlen(content), false);
		if (!*seen) {
			*seen = true;
			if (desc)
				collapse_into(doc->description, sizeof(doc->description), content);
			else
				collapse_into(doc->keywords, sizeof(doc->keywords), content);
		}
	}
	free(content);
}

/* --- JavaScript redirects (seed 002 §5.3.4) ---------------------------------- */

/* location = "…", location.href='…', window.location.assign("…"),
 * location.replace('…'), top/self/parent/document.location …; a string
 * literal only, not followed by '+' (a computed URL is not a redirect we
 * can follow).  `x.location = …` for other objects, `location.href ==`,
 * `location.href.replace(…)` do not match. */
static const char js_pattern[] =
	"(?:(?<![\\w$.])|\\b(?:window|self|top|parent|document)\\s*\\.\\s*)location"
	"(?:(?:\\s*\\.\\s*href)?\\s*=(?!=)|\\s*\\.\\s*(?:replace|assign)\\s*\\()\\s*"
	"(?:\"((?:[^\"\\\\\\r\\n]++|\\\\.)*+)\"|'((?:[^'\\\\\\r\\n]++|\\\\.)*+)')"
	"(?!\\s*\\+)";

static pthread_once_t js_once = PTHREAD_ONCE_INIT;
static pcre2_code *js_re; /* compiled once, kept for the process */

static void js_compile(void)
{
	int err;
	PCRE2_SIZE off;

	js_re = pcre2_compile((PCRE2_SPTR)js_pattern, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	if (!js_re)
		warning("html: JavaScript redirect pattern does not compile (error %d at %zu)", err,
			(size_t)off);
}

static void js_scan(struct parser *ps, const char *s, size_t n)
{
	pcre2_match_data *md = NULL;
	pcre2_match_context *mc = NULL;
	PCRE2_SIZE *ov;
	const char *v;
	size_t vn, i, k = 0;
	char *url;
	int g;

	if (ps->doc->js_redirect || !ps->js_budget)
		return;
	if (n > ps->js_budget)
		n = ps->js_budget;
	ps->js_budget -= n;
	/* Every match has "location" in it: most scripts are skipped at
	 * memmem() speed (the regex took 165,000 instructions per script). */
	if (!memmem(s, n, "location", 8))
		return;
	pthread_once(&js_once, js_compile);
	if (!js_re)
		return;
	md = pcre2_match_data_create_from_pattern(js_re, NULL);
	mc = pcre2_match_context_create(NULL);
	if (!md || !mc)
		goto out;
	pcre2_set_match_limit(mc, 100000);
	/* Byte mode (no PCRE2_UTF): the pattern is ASCII and the script may be
	 * any bytes, which UTF mode without its check would not survive. */
	if (pcre2_match(js_re, (PCRE2_SPTR)s, n, 0, 0, md, mc) < 0)
		goto out;
	ov = pcre2_get_ovector_pointer(md);
	g = ov[2] != PCRE2_UNSET ? 1 : 2;
	v = s + ov[2 * g];
	vn = ov[2 * g + 1] - ov[2 * g];
	/* Undo the JS escapes a URL needs: \/ \\ \' \". */
	url = xmalloc(vn + 1);
	for (i = 0; i < vn; i++) {
		if (v[i] == '\\' && i + 1 < vn && strchr("/\\'\"", v[i + 1]))
			i++;
		url[k++] = v[i];
	}
	while (k && is_ws((unsigned char)url[k - 1]))
		k--;
	url[k] = '\0';
	for (i = 0; is_ws((unsigned char)url[i]); i++)
		;
	if (url[i] && k - i <= MAX_URL_LEN)
		ps->doc->js_redirect = xstrdup(url + i);
	free(url);
out:
	pcre2_match_context_free(mc);
	pcre2_match_data_free(md);
}

static bool script_is_js(struct parser *ps, const struct tag *t)
{
	const char *type;

	if (t->attr[A_SRC].p)
		return false;
	type = attr_value(ps, t, A_TYPE);
	if (!type || !*type)
		return true;
	return strstr(type, "javascript") || strstr(type, "ecmascript") ||
	       strstr(type, "jscript") || !ascii_casecmp(type, "module");
}

/* --- raw text, comments ------------------------------------------------------ */

/* Position of the "</name" that ends a raw text element (followed by
 * whitespace, '/', '>' or the end), searching from `from`; NONE if none. */
static size_t find_close(struct parser *ps, enum raw_kind kind, size_t from)
{
	struct raw_cache *c = &ps->raw[kind];
	const char *name = raw_names[kind];
	size_t nl = strlen(name), p = from, at = NONE;
	const char *q;

	if (c->valid && from >= c->from && (c->at == NONE || c->at >= from))
		return c->at;
	while (p < ps->len && (q = memchr(ps->s + p, '<', ps->len - p))) {
		size_t i = (size_t)(q - ps->s), e = i + 2 + nl;
		if (e <= ps->len && q[1] == '/' && !ascii_ncasecmp(q + 2, name, nl) &&
		    (e == ps->len || is_ws((unsigned char)ps->s[e]) || ps->s[e] == '/' ||
		     ps->s[e] == '>')) {
			at = i;
			break;
		}
		p = i + 1;
	}
	c->valid = true;
	c->from = from;
	c->at = at;
	return at;
}

/* ASPseek/Yandex markers: the trimmed comment text, case-insensitive. */
static void comment_marker(struct parser *ps, const char *s, size_t n)
{
	bool close;

	while (n && is_ws((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && is_ws((unsigned char)s[n - 1]))
		n--;
	close = n && *s == '/';
	if (close) {
		s++;
		n--;
	}
	if (n == 10 && !ascii_ncasecmp(s, "udmcomment", 10))
		ps->noindex_udm = !close;
	else if (n == 7 && !ascii_ncasecmp(s, "noindex", 7))
		ps->noindex_yandex = !close;
}

/* Skip "<!--…-->" at ps->pos; false if it runs to the end of the input. */
static bool skip_comment(struct parser *ps)
{
	const char *s = ps->s + ps->pos, *q, *bang;
	size_t left = ps->len - ps->pos;

	/* "<!-->" and "<!--->" are complete (empty) comments in HTML5. */
	if (left >= 5 && s[4] == '>') {
		ps->pos += 5;
		return true;
	}
	if (left >= 6 && s[4] == '-' && s[5] == '>') {
		ps->pos += 6;
		return true;
	}
	q = memmem(s + 4, left - 4, "-->", 3);
	/* "--!>" ends a comment too, if it comes first. */
	bang = memmem(s + 4, (q ? (size_t)(q - s) : left) - 4, "--!>", 4);
	if (bang) {
		comment_marker(ps, s + 4, (size_t)(bang - s - 4));
		ps->pos += (size_t)(bang - s) + 4;
		return true;
	}
	if (!q)
		return false;
	comment_marker(ps, s + 4, (size_t)(q - s - 4));
	ps->pos += (size_t)(q - s) + 3;
	return true;
}

/* --- the tokenizer loop ---------------------------------------------------------- */

static enum brk tag_break(enum tag_id id)
{
	switch (id) {
	case T_INLINE: case T_A: return BRK_NONE;
	case T_BLOCK: case T_BR: case T_TITLE: case T_TEXTAREA: case T_XMP: case T_PLAINTEXT:
		return BRK_LINE;
	default: return BRK_SPACE;
	}
}

/* Content of a raw text element starting at ps->pos: returns its end (the
 * "</name" or the end of input) and leaves ps->pos there. */
static size_t raw_content(struct parser *ps, enum raw_kind kind, size_t *start)
{
	size_t at = find_close(ps, kind, ps->pos);

	*start = ps->pos;
	ps->pos = at == NONE ? ps->len : at;
	return ps->pos;
}

static void start_tag(struct parser *ps, const struct tag *t)
{
	struct html_doc *doc = ps->doc;
	size_t start, end;
	const char *v;

	text_break(ps, tag_break(t->id));
	switch (t->id) {
	case T_A:
		anchor_open(ps, t);
		break;
	case T_AREA: {
		struct html_link *l = add_link(ps, t, A_HREF, HTML_LINK_AREA);
		if (l) {
			struct buf b = BUF_INIT(MAX_ANCHOR_LEN);
			struct sink k = { &b, BRK_NONE, false, NULL };
			if ((v = attr_value(ps, t, A_ALT)))
				sink_add(&k, v, strlen(v), false);
			l->anchor = buf_detach(&b, NULL);
		}
		break;
	}
	case T_FRAME:
	case T_IFRAME: {
		enum html_link_kind kind = t->id == T_FRAME ? HTML_LINK_FRAME : HTML_LINK_IFRAME;
		struct html_link *l = add_link(ps, t, A_SRC, kind);
		if (l)
			l->anchor = xstrdup("");
		if (t->id == T_IFRAME) /* its content is fallback markup for old browsers */
			(void)raw_content(ps, R_IFRAME, &start);
		break;
	}
	case T_BASE:
		if (!doc->base)
			doc->base = attr_dup_trimmed(ps, t, A_HREF);
		break;
	case T_LINK:
		if (!doc->canonical && (v = attr_value(ps, t, A_REL)) &&
		    has_token(v, "canonical", " \t\n\r\f"))
			doc->canonical = attr_dup_trimmed(ps, t, A_HREF);
		break;
	case T_META:
		do_meta(ps, t);
		break;
	case T_IMG:
		if (ps->in_anchor && !noindex(ps) && (v = attr_value(ps, t, A_ALT))) {
			sink_break(&ps->anchor, BRK_SPACE);
			sink_add(&ps->anchor, v, strlen(v), false);
			sink_break(&ps->anchor, BRK_SPACE);
		}
		break;
	case T_SVG:
	case T_MATH:
		if (!t->self_closing && ps->foreign < MAX_HTML_DEPTH)
			ps->foreign++;
		break;
	case T_SCRIPT: {
		bool js = script_is_js(ps, t);
		end = raw_content(ps, R_SCRIPT, &start);
		if (js)
			js_scan(ps, ps->s + start, end - start);
		break;
	}
	case T_STYLE:
		(void)raw_content(ps, R_STYLE, &start);
		break;
	case T_TEXTAREA:
	case T_XMP:
		end = raw_content(ps, t->id == T_XMP ? R_XMP : R_TEXTAREA, &start);
		body_text(ps, ps->s + start, end - start, t->id == T_TEXTAREA);
		break;
	case T_PLAINTEXT:
		body_text(ps, ps->s + ps->pos, ps->len - ps->pos, false);
		ps->pos = ps->len;
		break;
	case T_TITLE:
		if (ps->foreign)
			break; /* an svg <title> is a tooltip, parsed as markup */
		if (ps->title_seen) {
			/* Later titles are RCDATA nobody shows. */
			if (find_close(ps, R_TITLE, ps->pos) != NONE)
				(void)raw_content(ps, R_TITLE, &start);
			break;
		}
		ps->title_seen = true;
		start = ps->pos;
		end = find_close(ps, R_TITLE, ps->pos);
		if (end == NONE) {
			const char *lt = memchr(ps->s + start, '<', ps->len - start);
			end = lt ? (size_t)(lt - ps->s) : ps->len;
		}
		ps->pos = end;
		{
			struct text_ctx tc = { { &ps->sec[SECTION_TITLE], NULL }, false };
			(void)decode_stream(ps->s + start, end - start, false, emit_text, &tc);
		}
		break;
	default:
		break;
	}
}

static void end_tag(struct parser *ps, const struct tag *t)
{
	text_break(ps, tag_break(t->id));
	if (t->id == T_A)
		anchor_close(ps);
	else if ((t->id == T_SVG || t->id == T_MATH) && ps->foreign > 0)
		ps->foreign--;
}

/* Everything after a '<' at ps->pos. Returns false when the rest of the
 * input is consumed (an unclosed comment or tag). */
static bool markup(struct parser *ps)
{
	const char *s = ps->s + ps->pos, *q;
	size_t left = ps->len - ps->pos;
	struct tag t;

	if (left >= 4 && !memcmp(s, "<!--", 4))
		return skip_comment(ps);
	if (left >= 9 && !memcmp(s, "<![CDATA[", 9)) {
		q = memmem(s + 9, left - 9, "]]>", 3);
		body_text(ps, s + 9, q ? (size_t)(q - s - 9) : left - 9, false);
		if (!q)
			return false;
		ps->pos += (size_t)(q - s) + 3;
		return true;
	}
	if (left >= 2 && (is_alpha((unsigned char)s[1]) ||
			  (s[1] == '/' && left >= 3 && is_alpha((unsigned char)s[2])))) {
		if (parse_tag(ps, &t))
			return false; /* EOF inside a tag: HTML5 drops it */
		if (t.end)
			end_tag(ps, &t);
		else
			start_tag(ps, &t);
		return true;
	}
	if (left >= 3 && s[1] == '/' && s[2] == '>') {
		ps->pos += 3; /* "</>" is nothing */
		return true;
	}
	if (left >= 2 && (s[1] == '!' || s[1] == '/' || s[1] == '?')) {
		/* DOCTYPE, processing instruction, "</ x>": bogus comments. */
		q = memchr(s, '>', left);
		if (!q)
			return false;
		ps->pos += (size_t)(q - s) + 1;
		return true;
	}
	body_text(ps, "<", 1, false); /* a lone '<' is text */
	ps->pos++;
	return true;
}

static void doc_init(struct html_doc *doc)
{
	int i;

	memset(doc, 0, sizeof(*doc));
	doc->refresh_delay = -1;
	for (i = 0; i < SECTION_COUNT; i++)
		buf_init(&doc->text[i],
			 i == SECTION_BODY ? (size_t)MAX_DOC_BYTES : MAX_HTML_META_TEXT);
}

static void parser_init(struct parser *ps, const char *s, size_t len, struct html_doc *doc)
{
	int i;

	pthread_once(&tag_once, tables_build);
	memset(ps, 0, sizeof(*ps));
	ps->s = s ? s : "";
	ps->len = s ? len : 0;
	ps->doc = doc;
	for (i = 0; i < SECTION_COUNT; i++) {
		ps->sec[i].b = &doc->text[i];
		ps->sec[i].truncated = &doc->truncated;
	}
	buf_init(&ps->anchor_buf, MAX_ANCHOR_LEN);
	ps->anchor.b = &ps->anchor_buf;
	ps->anchor_link = NONE;
	buf_init(&ps->attr, MAX_HTML_ATTR_LEN);
	ps->js_budget = MAX_JS_SCAN;
}

/* The derived stored columns: title and txt. */
static void finish(struct parser *ps)
{
	struct html_doc *doc = ps->doc;
	const struct buf *body = &doc->text[SECTION_BODY], *title = &doc->text[SECTION_TITLE];
	size_t n, i;

	anchor_close(ps);
	n = utf8_cut(buf_str(title), title->len, MAX_TITLE_LEN);
	memcpy(doc->title, buf_str(title), n);
	doc->title[n] = '\0';
	n = utf8_cut(buf_str(body), body->len, MAX_TXT_LEN);
	memcpy(doc->txt, buf_str(body), n);
	for (i = 0; i < n; i++)
		if (doc->txt[i] == '\n')
			doc->txt[i] = ' ';
	doc->txt[n] = '\0';
	buf_free(&ps->anchor_buf);
	buf_free(&ps->attr);
}

int html_parse(const char *utf8, size_t len, struct html_doc *doc)
{
	struct parser ps;

	doc_init(doc);
	parser_init(&ps, utf8, len, doc);
	while (ps.pos < ps.len) {
		const char *lt = memchr(ps.s + ps.pos, '<', ps.len - ps.pos);
		size_t end = lt ? (size_t)(lt - ps.s) : ps.len;

		if (end > ps.pos)
			body_text(&ps, ps.s + ps.pos, end - ps.pos, true);
		ps.pos = end;
		if (lt && !markup(&ps))
			break;
	}
	finish(&ps);
	return 0;
}

int html_parse_text(const char *utf8, size_t len, struct html_doc *doc)
{
	struct parser ps;

	doc_init(doc);
	parser_init(&ps, utf8, len, doc);
	sink_add(&ps.sec[SECTION_BODY], ps.s, ps.len, true);
	finish(&ps);
	return 0;
}

void html_doc_free(struct html_doc *doc)
{
	size_t i;

	if (!doc)
		return;
	for (i = 0; i < doc->nlinks; i++) {
		free(doc->links[i].url);
		free(doc->links[i].anchor);
	}
	free(doc->links);
	free(doc->refresh_url);
	free(doc->base);
	free(doc->canonical);
	free(doc->js_redirect);
	for (i = 0; i < SECTION_COUNT; i++)
		buf_free(&doc->text[i]);
	doc_init(doc);
}

void html_foreach_text(const struct html_doc *doc, html_text_cb cb, void *arg)
{
	static const enum section order[] = {
		SECTION_TITLE, SECTION_DESCRIPTION, SECTION_KEYWORDS, SECTION_BODY,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (doc->text[order[i]].len)
			cb(order[i], buf_str(&doc->text[order[i]]), doc->text[order[i]].len, arg);
}

const char *html_section_name(enum section sec)
{
	switch (sec) {
	case SECTION_BODY: return "body";
	case SECTION_DESCRIPTION: return "description";
	case SECTION_KEYWORDS: return "keywords";
	case SECTION_TITLE: return "title";
	}
	return "?";
}
