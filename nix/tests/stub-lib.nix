# A minimal stand-in for nixpkgs' `lib`, for evaluating nix/module.nix,
# nix/package.nix and flake.nix offline (this machine has no nixpkgs).
#
# It provides only what those files use, with nixpkgs' semantics as far as
# they matter here, plus `evalModules`, a small module system:
#   - options are declared with mkOption (nested attribute sets of them);
#     defining an option nobody declared is an error ("does not exist"), a
#     definition of the wrong type is an error, an option without a value is
#     an error when read;
#   - mkIf / mkMerge / mkOverride (mkDefault, mkForce, option defaults at
#     priority 1500) are pushed down and discharged as in nixpkgs: the
#     definitions with the lowest priority number win;
#   - types: bool int float str lines path package enum nullOr listOf attrsOf
#     either oneOf ints.between ints.positive submodule unspecified, with
#     nixpkgs' merge rules (str/bool/int: equal values only; package: one
#     definition only; listOf: concatenated; attrsOf: merged by name); a
#     submodule is a set of options, or a function of { name, config } (the
#     attribute's name under attrsOf, its own evaluated options) giving
#     { options; config; }, its config merged with the definitions;
#   - readOnly options may have one definition, their default included.
# Not supported (and not used): _module.args, freeformType, apply,
# disabledModules, imports in submodules, option renames, mkBefore/mkAfter.
let
  b = builtins;

  # --- plain helpers (behave as in nixpkgs) ---------------------------------
  id = x: x;
  optional = cond: x: if cond then [ x ] else [ ];
  optionals = cond: xs: if cond then xs else [ ];
  optionalString = cond: s: if cond then s else "";
  optionalAttrs = cond: as: if cond then as else { };
  concatStringsSep = b.concatStringsSep;
  concatMapStringsSep = sep: f: xs: b.concatStringsSep sep (map f xs);
  mapAttrsToList = f: as: map (n: f n as.${n}) (b.attrNames as);
  filterAttrs = pred: as:
    b.listToAttrs (b.concatMap (n: if pred n as.${n} then [ { name = n; value = as.${n}; } ] else [ ])
      (b.attrNames as));
  genAttrs = names: f: b.listToAttrs (map (n: { name = n; value = f n; }) names);
  hasPrefix = pre: s: b.substring 0 (b.stringLength pre) s == pre;
  hasSuffix = suf: s:
    let ls = b.stringLength s; lf = b.stringLength suf;
    in lf <= ls && b.substring (ls - lf) lf s == suf;
  removePrefix = pre: s:
    if hasPrefix pre s then b.substring (b.stringLength pre) (b.stringLength s) s else s;
  removeSuffix = suf: s:
    if hasSuffix suf s then b.substring 0 (b.stringLength s - b.stringLength suf) s else s;
  fileContents = file: removeSuffix "\n" (b.readFile file);
  escapeShellArg = arg: "'${b.replaceStrings [ "'" ] [ "'\\''" ] (toString arg)}'";
  escapeShellArgs = args: concatMapStringsSep " " escapeShellArg args;
  getDev = pkg: pkg.dev or pkg.out or pkg;
  isDerivation = x: b.isAttrs x && (x.type or null) == "derivation";

  # lib.sources.cleanSourceFilter, as in nixpkgs.
  cleanSourceFilter = name: type:
    let baseName = baseNameOf (toString name); in
    !((type == "directory" && b.elem baseName [ ".git" ".svn" "CVS" ".hg" ])
      || hasSuffix "~" baseName
      || b.match "^\\.sw[a-z]$" baseName != null
      || b.match "^\\..*\\.sw[a-z]$" baseName != null
      || hasSuffix ".o" baseName
      || hasSuffix ".so" baseName
      || (type == "symlink" && hasPrefix "result" baseName)
      || type == "unknown");
  # Real cleanSourceWith copies the filtered tree into the store; the stub
  # keeps the filter so the tests can call it, and never copies anything.
  cleanSourceWith = { src, filter ? (_: _: true), name ? "source" }: {
    inherit name filter;
    origSrc = src;
    outPath = "/nix/store/00000000000000000000000000000000-${name}";
  };

  # --- module system ----------------------------------------------------------
  mkOption = attrs: attrs // { _type = "option"; };
  mkEnableOption = name: mkOption {
    type = types.bool;
    default = false;
    example = true;
    description = "Whether to enable ${name}.";
  };
  mkIf = condition: content: { _type = "if"; inherit condition content; };
  mkMerge = contents: { _type = "merge"; inherit contents; };
  mkOverride = priority: content: { _type = "override"; inherit priority content; };
  mkOptionDefault = mkOverride 1500;
  mkDefault = mkOverride 1000;
  mkForce = mkOverride 50;
  literalExpression = text: { _type = "literalExpression"; inherit text; };
  isOption = x: b.isAttrs x && (x._type or null) == "option";
  showLoc = loc: concatStringsSep "." loc;

  # A definition -> [ { priority; value; } ], mkIf and mkMerge resolved.
  discharge = prio: def:
    let t = if b.isAttrs def then def._type or null else null; in
    if t == "if" then
      (if !(b.isBool def.condition) then throw "mkIf called with a non-Boolean condition"
       else if def.condition then discharge prio def.content else [ ])
    else if t == "merge" then b.concatMap (discharge prio) def.contents
    else if t == "override" then discharge def.priority def.content
    else [ { priority = prio; value = def; } ];

  # A definition of a set of options -> { name = [ definition ]; }, the
  # properties pushed down to each attribute (conditions not evaluated).
  pushDown = loc: def:
    let t = if b.isAttrs def then def._type or null else null; in
    if t == "if" then b.mapAttrs (n: map (mkIf def.condition)) (pushDown loc def.content)
    else if t == "merge" then b.zipAttrsWith (n: b.concatLists) (map (pushDown loc) def.contents)
    else if t == "override" then b.mapAttrs (n: map (mkOverride def.priority)) (pushDown loc def.content)
    else if b.isAttrs def && t == null then b.mapAttrs (n: v: [ v ]) def
    else throw "The option `${showLoc loc}' holds options: its definition must be an attribute set.";

  # The winning definitions of one option, checked and merged by its type.
  mergeDefinitions = loc: type: defs:
    let
      ds = b.concatMap (discharge 100) defs;
      best = b.foldl' (m: d: if d.priority < m then d.priority else m) 99999 ds;
      values = map (d: d.value) (b.filter (d: d.priority == best) ds);
      bad = b.filter (v: !(type.check v)) values;
    in
    if b.length values == 0 then { isDefined = false; }
    else if b.length bad != 0 then
      throw "A definition for option `${showLoc loc}' is not of type `${type.description}'."
    else { isDefined = true; value = type.merge loc values; };

  evalOption = loc: opt: defs:
    let
      defs' = defs ++ optional (opt ? default) (mkOptionDefault opt.default);
      r = mergeDefinitions loc (opt.type or types.unspecified) defs';
    in
    # as nixpkgs: the default counts, so a read-only option with a default
    # cannot be defined at all
    if (opt.readOnly or false) && b.length defs' > 1 then
      throw "The option `${showLoc loc}' is read-only, but it's set multiple times."
    else if r.isDefined then r.value
    else throw "The option `${showLoc loc}' is used but not defined.";

  # Declarations (a nested set whose leaves are options) + definitions -> values.
  evalDecls = loc: decls: defs:
    let
      pushed = b.zipAttrsWith (n: b.concatLists) (map (pushDown loc) defs);
      unknown = b.filter (n: !(decls ? ${n})) (b.attrNames pushed);
    in
    if unknown != [ ] then throw "The option `${showLoc (loc ++ [ (b.head unknown) ])}' does not exist."
    else b.mapAttrs
      (n: d:
        if isOption d then evalOption (loc ++ [ n ]) d (pushed.${n} or [ ])
        else evalDecls (loc ++ [ n ]) d (pushed.${n} or [ ]))
      decls;

  mergeDeclarations = loc: a: c:
    b.foldl'
      (acc: n:
        if !(acc ? ${n}) then acc // { ${n} = c.${n}; }
        else if isOption acc.${n} || isOption c.${n} then
          throw "The option `${showLoc (loc ++ [ n ])}' is declared twice."
        else acc // { ${n} = mergeDeclarations (loc ++ [ n ]) acc.${n} c.${n}; })
      a
      (b.attrNames c);

  evalModules = { modules, specialArgs ? { } }:
    let
      allowed = [ "options" "config" "imports" "meta" "_file" "key" ];
      collect = m:
        let
          v = if b.isPath m || b.isString m then import m else m;
          r = if b.isFunction v then v (specialArgs // { inherit lib config options; }) else v;
          structured = r ? options || r ? config || r ? imports;
          extra = b.filter (n: !(b.elem n allowed)) (b.attrNames r);
        in
        if structured && extra != [ ] then
          throw "Module has an unsupported attribute `${b.head extra}'."
        else [ { options = r.options or { }; config = if structured then r.config or { } else r; } ]
          ++ b.concatMap collect (r.imports or [ ]);
      collected = b.concatMap collect modules;
      options = b.foldl' (mergeDeclarations [ ]) { } (map (m: m.options) collected);
      config = evalDecls [ ] options (map (m: m.config) collected);
    in
    { inherit config options; };

  # --- types ------------------------------------------------------------------
  mergeEqual = loc: values:
    let v0 = b.head values; in
    if b.all (v: v == v0) values then v0
    else throw "The option `${showLoc loc}' has conflicting definition values.";
  mergeOne = loc: values:
    if b.length values == 1 then b.head values
    else throw "The option `${showLoc loc}' is defined multiple times while it's expected to be unique.";

  mkOptionType = { name, description ? name, check ? (_: true), merge ? mergeEqual }: {
    _type = "option-type";
    inherit name description check merge;
  };

  types = rec {
    unspecified = mkOptionType { name = "unspecified"; };
    bool = mkOptionType { name = "bool"; description = "boolean"; check = b.isBool; };
    int = mkOptionType { name = "int"; description = "signed integer"; check = b.isInt; };
    float = mkOptionType { name = "float"; description = "floating point number"; check = b.isFloat; };
    str = mkOptionType { name = "str"; description = "string"; check = b.isString; };
    lines = mkOptionType {
      name = "lines";
      description = "strings concatenated with \"\\n\"";
      check = b.isString;
      merge = loc: values: concatStringsSep "\n" values;
    };
    path = mkOptionType {
      name = "path";
      description = "absolute path";
      check = x: (b.isPath x || b.isString x || (b.isAttrs x && x ? outPath))
        && b.substring 0 1 (toString x) == "/";
    };
    package = mkOptionType {
      name = "package";
      check = isDerivation;
      merge = mergeOne;
    };
    enum = vals: mkOptionType {
      name = "enum";
      description = "one of ${concatMapStringsSep ", " b.toJSON vals}";
      check = v: b.elem v vals;
    };
    nullOr = t: mkOptionType {
      name = "nullOr";
      description = "null or ${t.description}";
      check = x: x == null || t.check x;
      merge = loc: values:
        let nulls = b.length (b.filter (v: v == null) values); in
        if nulls == b.length values then null
        else if nulls != 0 then throw "The option `${showLoc loc}' is defined both null and not null."
        else t.merge loc values;
    };
    listOf = t: mkOptionType {
      name = "listOf";
      description = "list of ${t.description}";
      check = b.isList;
      merge = loc: values:
        b.concatMap
          (l: b.concatMap
            (e:
              let r = mergeDefinitions (loc ++ [ "[]" ]) t [ e ]; in
              if r.isDefined then [ r.value ] else [ ])
            l)
          values;
    };
    attrsOf = t: mkOptionType {
      name = "attrsOf";
      description = "attribute set of ${t.description}";
      check = b.isAttrs;
      merge = loc: values:
        let
          merged = b.zipAttrsWith (n: ds: mergeDefinitions (loc ++ [ n ]) t ds) values;
        in
        b.mapAttrs (n: r: r.value) (filterAttrs (n: r: r.isDefined) merged);
    };
    either = t1: t2: mkOptionType {
      name = "either";
      description = "${t1.description} or ${t2.description}";
      check = x: t1.check x || t2.check x;
      merge = loc: values:
        if b.all t1.check values then t1.merge loc values
        else if b.all t2.check values then t2.merge loc values
        else mergeOne loc values;
    };
    oneOf = ts: b.foldl' either (b.head ts) (b.tail ts);
    ints = {
      between = lo: hi: mkOptionType {
        name = "intBetween";
        description = "integer between ${toString lo} and ${toString hi} (both inclusive)";
        check = x: b.isInt x && x >= lo && x <= hi;
      };
      positive = mkOptionType {
        name = "positiveInt";
        description = "positive integer, meaning >0";
        check = x: b.isInt x && x > 0;
      };
    };
    submodule = m: mkOptionType {
      name = "submodule";
      description = "submodule";
      check = b.isAttrs;
      # a function module sees its name and its own result (lazily: a fixpoint)
      merge = loc: values:
        if b.isFunction m then
          let
            self = evalDecls loc mod.options (values ++ [ (mod.config or { }) ]);
            mod = m { name = b.elemAt loc (b.length loc - 1); config = self; };
          in
          self
        else evalDecls loc m.options values;
    };
  };

  lib = {
    inherit id optional optionals optionalString optionalAttrs concatStringsSep
      concatMapStringsSep mapAttrsToList filterAttrs genAttrs hasPrefix hasSuffix
      removePrefix removeSuffix fileContents escapeShellArg escapeShellArgs getDev
      isDerivation cleanSourceFilter cleanSourceWith
      mkOption mkEnableOption mkIf mkMerge mkOverride mkOptionDefault mkDefault mkForce
      literalExpression mkOptionType types evalModules;
    inherit (b) attrNames attrValues elem filter length head tail all any concatMap
      concatLists mapAttrs toJSON;
    platforms.linux = [ "x86_64-linux" "aarch64-linux" "i686-linux" ];
  };
in
lib
