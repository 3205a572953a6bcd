# The rule language. Precompiled by grammar/build.mjs into src/rules/grammar/rules.generated.ts.
# Precedence, loosest first: or, and, not, predicates (comparison, between, in, is missing), + -, * / %, unary -.
@preprocessor typescript
@{%
import { lexer } from '../lexer.js';
import * as a from '../grammar-actions.js';
%}
@lexer lexer

file      -> item:*                                              {% id %}
item      -> rule                                                {% id %}
           | decide                                              {% id %}

rule      -> %RULE %ident %string clause:* %END                  {% a.rule %}
clause    -> %WHEN expr                                          {% a.when %}
           | %SCORE "-":? %number                                {% a.score %}
           | %REASON %ident %ident %string                       {% a.reason %}
           | %TAGS identList                                     {% a.tags %}
           | %FORCE %ident                                       {% a.force %}
identList -> %ident ("," %ident):*                               {% a.list %}

decide    -> %DECIDE threshold:* %OTHERWISE %ident %END          {% a.decide %}
threshold -> %ident %AT %number                                  {% a.threshold %}

expr      -> expr %OR conj                                       {% a.logic %}
           | conj                                                {% id %}
conj      -> conj %AND neg                                       {% a.logic %}
           | neg                                                 {% id %}
neg       -> %NOT neg                                            {% a.not %}
           | pred                                                {% id %}
pred      -> sum cmp sum                                         {% a.compare %}
           | sum %NOT:? %BETWEEN sum %AND sum                    {% a.between %}
           | sum %NOT:? %IN "[" exprList "]"                     {% a.inSet %}
           | sum %NOT:? %IN %LIST %ident                         {% a.inList %}
           | sum %IS %NOT:? %MISSING                             {% a.missing %}
           | sum                                                 {% id %}
cmp       -> "=" | "!=" | "<" | "<=" | ">" | ">="
sum       -> sum ("+" | "-") prod                                {% a.arith %}
           | prod                                                {% id %}
prod      -> prod ("*" | "/" | "%") unary                        {% a.arith %}
           | unary                                               {% id %}
unary     -> "-" unary                                           {% a.neg %}
           | atom                                                {% id %}
atom      -> %number                                             {% a.num %}
           | %string                                             {% a.str %}
           | (%TRUE | %FALSE)                                    {% (d) => a.bool(d[0]) %}
           | %ident                                              {% a.field %}
           | %ident "(" exprList:? ")"                           {% a.call %}
           | %ident "(" expr:? %BY %ident %OVER %number %UNIT (%WHERE expr):? ")" {% a.velocity %}
           | "(" expr ")"                                        {% a.paren %}
exprList  -> expr ("," expr):*                                   {% a.list %}
