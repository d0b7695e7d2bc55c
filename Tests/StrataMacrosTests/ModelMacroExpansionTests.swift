import Testing

/// The accessors `@_PersistedProperty` gives a property, and its peer, as they appear in a
/// class body: `declaration` (`var name: String`) keyed by `key`, stored in `_storage`.
/// An optional property's (`String?`, `Person!`) init accessor records nil only once the model
/// has backing data.
func persistedProperty(_ declaration: String, key: String, keyPath: String? = nil) -> String {
    let path = keyPath ?? key
    let initialValue =
        declaration.hasSuffix("?") || declaration.hasSuffix("!")
        ? """
                    _\(key) = _SwiftDataNoType()
                    if initialValue == nil, _$backingData.isEmpty {
                        return
                    }
                    SwiftData._withBacking(&_$backingData) {
                        $0.setValue(initialValue, forKey: "\(key)")
                    }
        """
        : """
                    SwiftData._withBacking(&_$backingData) {
                        $0.setValue(initialValue, forKey: "\(key)")
                    }
                    _\(key) = _SwiftDataNoType()
        """
    return """
            \(declaration) {
                @storageRestrictions(accesses: _$backingData, initializes: _\(key))
                init(initialValue) {
        \(initialValue)
                }
                get {
                    _$observationRegistrar.access(self, keyPath: \\.\(path))
                    return SwiftData._withBacking(&self._$backingData) {
                        $0.getValue(forKey: "\(key)")
                    }
                }
                set {
                    _$observationRegistrar.withMutation(of: self, keyPath: \\.\(path)) {
                        SwiftData._withBacking(&self._$backingData) {
                            $0.setValue(newValue, forKey: "\(key)")
                        }
                    }
                }
            }

            @Transient private var _\(key): _SwiftDataNoType
        """
}

/// The members `@Model` adds to class `name`: `metadata` are the entries of its
/// `schemaMetadata`, `keys` its persisted properties, `unique` and `indexes` the arrays of its
/// `_$constraints`.
func modelMembers(
    of name: String,
    metadata: [String] = [],
    keys: [String] = [],
    unique: String = "[]",
    indexes: String = "[]"
) -> String {
    let schema =
        metadata.isEmpty
        ? "        []"
        : (["        ["] + metadata.map { "            \($0)," } + ["        ]"]).joined(separator: "\n")
    let initialisers = (keys.map { "        _\($0) = _SwiftDataNoType()\n" }).joined()
    return """
            @Transient @exclusivity(unchecked) private var _$backingData = SwiftData._ModelStorage<\(name)>()

            public var persistentBackingData: any SwiftData.BackingData<\(name)> {
                get {
                    SwiftData._prepareBacking(&_$backingData)
                }
                set {
                    _$backingData = SwiftData._ModelStorage<\(name)>(adopting: newValue)
                }
            }

            public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
        \(schema)
            }

            public required init(backingData: any SwiftData.BackingData<\(name)>) {
        \(initialisers)        self._$backingData = SwiftData._ModelStorage<\(name)>(adopting: backingData)
            }

            public static func _$model(object: AnyObject, context: SwiftData.ModelContext) -> \(name) {
                \(name)(_$storage: SwiftData._ModelStorage<\(name)>(object: object, context: context))
            }

            private init(_$storage storage: SwiftData._ModelStorage<\(name)>) {
        \(initialisers)        self._$backingData = storage
            }

            public func _$row() -> SwiftData._ModelRow? {
                SwiftData._row(of: &_$backingData)
            }

            public func _$keepRow(_ row: SwiftData._ModelRow) -> SwiftData._PendingValues? {
                SwiftData._keepRow(row, in: &_$backingData)
            }

            @Transient @exclusivity(unchecked) private var _$observationRegistrar = SwiftData._ModelObservationRegistrar()

            public static var _$constraints: SwiftData._ModelConstraints {
                SwiftData._ModelConstraints(unique: \(unique), indexes: \(indexes))
            }
        """
}

/// The conformances `@Model` adds to a class that lists neither.
func modelConformances(of name: String) -> String {
    """
    extension \(name): SwiftData.PersistentModel {
    }

    extension \(name): Observation.Observable {
    }
    """
}

/// `@Model` persists each stored instance `var` through its backing data, describes the
/// persisted properties and constraints in the class's schema, and adds the conformances.
@Suite("@Model expansion")
struct ModelMacroExpansionTests {
    @Test("the contract's example expands exactly")
    func contractExample() {
        assertSwiftDataExpansion(
            #"""
            @Model final class Trip {
                #Unique<Trip>([\.name, \.start])
                #Index<Trip>([\.name], [\.start, \.end])
                var name: String
                var start: Date = .now
                @Attribute(.unique, originalName: "code_v1") var code: String?
                @Relationship(deleteRule: .cascade, inverse: \Stop.trip) var stops: [Stop] = []
                @Transient var scratch = 0
                var computed: Int { 3 }
                static var shared = 1
                init(name: String) { self.name = name }
            }
            """#,
            expandedSource: #"""
                final class Trip {
                    var name: String {
                        @storageRestrictions(accesses: _$backingData, initializes: _name)
                        init(initialValue) {
                            SwiftData._withBacking(&_$backingData) {
                                $0.setValue(initialValue, forKey: "name")
                            }
                            _name = _SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.name)
                            return SwiftData._withBacking(&self._$backingData) {
                                $0.getValue(forKey: "name")
                            }
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
                                SwiftData._withBacking(&self._$backingData) {
                                    $0.setValue(newValue, forKey: "name")
                                }
                            }
                        }
                    }

                    @Transient private var _name: _SwiftDataNoType
                    var start: Date {
                        @storageRestrictions(accesses: _$backingData, initializes: _start)
                        init(initialValue) {
                            SwiftData._withBacking(&_$backingData) {
                                $0.setValue(initialValue, forKey: "start")
                            }
                            _start = _SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.start)
                            return SwiftData._withBacking(&self._$backingData) {
                                $0.getValue(forKey: "start")
                            }
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.start) {
                                SwiftData._withBacking(&self._$backingData) {
                                    $0.setValue(newValue, forKey: "start")
                                }
                            }
                        }
                    }

                    @Transient private var _start: _SwiftDataNoType
                    @Attribute(.unique, originalName: "code_v1")
                    var code: String? {
                        @storageRestrictions(accesses: _$backingData, initializes: _code)
                        init(initialValue) {
                            _code = _SwiftDataNoType()
                            if initialValue == nil, _$backingData.isEmpty {
                                return
                            }
                            SwiftData._withBacking(&_$backingData) {
                                $0.setValue(initialValue, forKey: "code")
                            }
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.code)
                            return SwiftData._withBacking(&self._$backingData) {
                                $0.getValue(forKey: "code")
                            }
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.code) {
                                SwiftData._withBacking(&self._$backingData) {
                                    $0.setValue(newValue, forKey: "code")
                                }
                            }
                        }
                    }

                    @Transient private var _code: _SwiftDataNoType
                    @Relationship(deleteRule: .cascade, inverse: \Stop.trip)
                    var stops: [Stop] {
                        @storageRestrictions(accesses: _$backingData, initializes: _stops)
                        init(initialValue) {
                            SwiftData._withBacking(&_$backingData) {
                                $0.setValue(initialValue, forKey: "stops")
                            }
                            _stops = _SwiftDataNoType()
                        }
                        get {
                            _$observationRegistrar.access(self, keyPath: \.stops)
                            return SwiftData._withBacking(&self._$backingData) {
                                $0.getValue(forKey: "stops")
                            }
                        }
                        set {
                            _$observationRegistrar.withMutation(of: self, keyPath: \.stops) {
                                SwiftData._withBacking(&self._$backingData) {
                                    $0.setValue(newValue, forKey: "stops")
                                }
                            }
                        }
                    }

                    @Transient private var _stops: _SwiftDataNoType
                    @Transient var scratch = 0
                    var computed: Int { 3 }
                    static var shared = 1
                    init(name: String) { self.name = name }

                    @Transient @exclusivity(unchecked) private var _$backingData = SwiftData._ModelStorage<Trip>()

                    public var persistentBackingData: any SwiftData.BackingData<Trip> {
                        get {
                            SwiftData._prepareBacking(&_$backingData)
                        }
                        set {
                            _$backingData = SwiftData._ModelStorage<Trip>(adopting: newValue)
                        }
                    }

                    public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                        [
                            SwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil),
                            SwiftData.Schema.PropertyMetadata(name: "start", keypath: \Trip.start, defaultValue: (.now) as Date, metadata: nil),
                            SwiftData.Schema.PropertyMetadata(name: "code", keypath: \Trip.code, defaultValue: nil, metadata: SwiftData.Schema.Attribute(.unique, originalName: "code_v1")),
                            SwiftData.Schema.PropertyMetadata(name: "stops", keypath: \Trip.stops, defaultValue: ([]) as [Stop], metadata: SwiftData.Schema.Relationship(deleteRule: .cascade, inverse: \Stop.trip)),
                        ]
                    }

                    public required init(backingData: any SwiftData.BackingData<Trip>) {
                        _name = _SwiftDataNoType()
                        _start = _SwiftDataNoType()
                        _code = _SwiftDataNoType()
                        _stops = _SwiftDataNoType()
                        self._$backingData = SwiftData._ModelStorage<Trip>(adopting: backingData)
                    }

                    public static func _$model(object: AnyObject, context: SwiftData.ModelContext) -> Trip {
                        Trip(_$storage: SwiftData._ModelStorage<Trip>(object: object, context: context))
                    }

                    private init(_$storage storage: SwiftData._ModelStorage<Trip>) {
                        _name = _SwiftDataNoType()
                        _start = _SwiftDataNoType()
                        _code = _SwiftDataNoType()
                        _stops = _SwiftDataNoType()
                        self._$backingData = storage
                    }

                    public func _$row() -> SwiftData._ModelRow? {
                        SwiftData._row(of: &_$backingData)
                    }

                    public func _$keepRow(_ row: SwiftData._ModelRow) -> SwiftData._PendingValues? {
                        SwiftData._keepRow(row, in: &_$backingData)
                    }

                    @Transient @exclusivity(unchecked) private var _$observationRegistrar = SwiftData._ModelObservationRegistrar()

                    public static var _$constraints: SwiftData._ModelConstraints {
                        SwiftData._ModelConstraints(unique: [[\Trip.name, \Trip.start]], indexes: [[\Trip.name], [\Trip.start, \Trip.end]])
                    }
                }

                extension Trip: SwiftData.PersistentModel {
                }

                extension Trip: Observation.Observable {
                }
                """#
        )
    }

    @Test("a class without persisted properties gets an empty schema")
    func noPersistedProperties() {
        assertSwiftDataExpansion(
            """
            @Model final class Note {
                @Transient var draft = ""
                func touch() {}
            }
            """,
            expandedSource: """
                final class Note {
                    @Transient var draft = ""
                    func touch() {}

                \(modelMembers(of: "Note"))
                }

                \(modelConformances(of: "Note"))
                """
        )
    }

    @Test("the key of a property with backticks is its name without them")
    func backticks() {
        assertSwiftDataExpansion(
            """
            @Model final class Setting {
                var `default`: String
            }
            """,
            expandedSource: """
                final class Setting {
                \(persistedProperty("var `default`: String", key: "default", keyPath: "`default`"))

                \(modelMembers(
                    of: "Setting",
                    metadata: [
                        #"SwiftData.Schema.PropertyMetadata(name: "default", keypath: \Setting.`default`, defaultValue: nil, metadata: nil)"#
                    ],
                    keys: ["default"]
                ))
                }

                \(modelConformances(of: "Setting"))
                """
        )
    }

    @Test("optional, implicitly unwrapped and array types")
    func optionalAndArrayTypes() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                var note: String?
                var tags: [String]
                var nicknames: [String]? = nil
                var owner: Person! = nil
            }
            """,
            expandedSource: """
                final class Trip {
                \(persistedProperty("var note: String?", key: "note"))
                \(persistedProperty("var tags: [String]", key: "tags"))
                \(persistedProperty("var nicknames: [String]?", key: "nicknames"))
                \(persistedProperty("var owner: Person!", key: "owner"))

                \(modelMembers(
                    of: "Trip",
                    metadata: [
                        #"SwiftData.Schema.PropertyMetadata(name: "note", keypath: \Trip.note, defaultValue: nil, metadata: nil)"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "tags", keypath: \Trip.tags, defaultValue: nil, metadata: nil)"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "nicknames", keypath: \Trip.nicknames, defaultValue: (nil) as [String]?, metadata: nil)"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "owner", keypath: \Trip.owner, defaultValue: (nil) as Person?, metadata: nil)"#,
                    ],
                    keys: ["note", "tags", "nicknames", "owner"]
                ))
                }

                \(modelConformances(of: "Trip"))
                """
        )
    }

    @Test("default values: cast to the annotated type, bare without an annotation")
    func defaultValues() {
        assertSwiftDataExpansion(
            """
            @Model final class Counter {
                var count = 0
                var title: String = "Untitled"
                var created = Date()
                var ratio: Double = 1.5
            }
            """,
            expandedSource: """
                final class Counter {
                \(persistedProperty("var count", key: "count"))
                \(persistedProperty("var title: String", key: "title"))
                \(persistedProperty("var created", key: "created"))
                \(persistedProperty("var ratio: Double", key: "ratio"))

                \(modelMembers(
                    of: "Counter",
                    metadata: [
                        #"SwiftData.Schema.PropertyMetadata(name: "count", keypath: \Counter.count, defaultValue: 0, metadata: nil)"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "title", keypath: \Counter.title, defaultValue: ("Untitled") as String, metadata: nil)"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "created", keypath: \Counter.created, defaultValue: Date(), metadata: nil)"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "ratio", keypath: \Counter.ratio, defaultValue: (1.5) as Double, metadata: nil)"#,
                    ],
                    keys: ["count", "title", "created", "ratio"]
                ))
                }

                \(modelConformances(of: "Counter"))
                """
        )
    }

    @Test("@Attribute without arguments, with empty parentheses, and qualified")
    func attributeWithoutArguments() {
        assertSwiftDataExpansion(
            """
            @Model final class Photo {
                @Attribute var title: String
                @Attribute() var caption: String
                @SwiftData.Attribute(.externalStorage) var data: Data
            }
            """,
            expandedSource: """
                final class Photo {
                    @Attribute
                \(persistedProperty("var title: String", key: "title"))
                    @Attribute()
                \(persistedProperty("var caption: String", key: "caption"))
                    @SwiftData.Attribute(.externalStorage)
                \(persistedProperty("var data: Data", key: "data"))

                \(modelMembers(
                    of: "Photo",
                    metadata: [
                        #"SwiftData.Schema.PropertyMetadata(name: "title", keypath: \Photo.title, defaultValue: nil, metadata: SwiftData.Schema.Attribute())"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "caption", keypath: \Photo.caption, defaultValue: nil, metadata: SwiftData.Schema.Attribute())"#,
                        #"SwiftData.Schema.PropertyMetadata(name: "data", keypath: \Photo.data, defaultValue: nil, metadata: SwiftData.Schema.Attribute(.externalStorage))"#,
                    ],
                    keys: ["title", "caption", "data"]
                ))
                }

                \(modelConformances(of: "Photo"))
                """
        )
    }

    @Test(
        "members that are not persisted are left alone",
        arguments: [
            "@Transient var scratch = 0",
            "@Transient var cache: [String: Int] = [:]",
            "@Transient var label: String { \"x\" }",
            "var computed: Int { 3 }",
            "var described: String { get { \"x\" } set {} }",
            "var watched: Int = 0 { didSet { print(oldValue) } }",
            "var guarded: Int = 0 { willSet {} }",
            "static var shared = 1",
            "static let name = \"trip\"",
            "class var kind: String { \"trip\" }",
            "lazy var formatter = Formatter()",
            "func total() -> Int { 0 }",
            "init() {}",
            "typealias ID = Int",
        ]
    )
    func leftAlone(member: String) {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                \(member)
            }
            """,
            expandedSource: """
                final class Trip {
                    \(member)

                \(modelMembers(of: "Trip"))
                }

                \(modelConformances(of: "Trip"))
                """
        )
    }

    @Test("#Unique and #Index are gathered, their key paths rooted at the class")
    func constraints() {
        assertSwiftDataExpansion(
            #"""
            @Model final class Trip {
                #Unique<Trip>([\.name, \.start])
                #Unique<Trip>([\Trip.code], [\.destination.city])
                #Index<Trip>([\.name], [\.start, \.end])
            }
            """#,
            expandedSource: #"""
                final class Trip {

                \#(modelMembers(
                    of: "Trip",
                    unique: #"[[\Trip.name, \Trip.start], [\Trip.code], [\Trip.destination.city]]"#,
                    indexes: #"[[\Trip.name], [\Trip.start, \Trip.end]]"#
                ))
                }

                \#(modelConformances(of: "Trip"))
                """#
        )
    }

    @Test("only #Index: no unique constraints")
    func onlyIndexes() {
        assertSwiftDataExpansion(
            #"""
            @Model final class Trip {
                #Index<Trip>([\.name])
            }
            """#,
            expandedSource: #"""
                final class Trip {

                \#(modelMembers(of: "Trip", unique: "[]", indexes: #"[[\Trip.name]]"#))
                }

                \#(modelConformances(of: "Trip"))
                """#
        )
    }

    @Test("a class that lists PersistentModel gains only Observable")
    func listedPersistentModel() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip: PersistentModel {
            }
            """,
            expandedSource: """
                final class Trip: PersistentModel {

                \(modelMembers(of: "Trip"))
                }

                extension Trip: Observation.Observable {
                }
                """
        )
    }

    @Test("a class that lists both protocols, qualified, gains no extension")
    func listedBoth() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip: SwiftData.PersistentModel, Observation.Observable {
            }
            """,
            expandedSource: """
                final class Trip: SwiftData.PersistentModel, Observation.Observable {

                \(modelMembers(of: "Trip"))
                }
                """
        )
    }

    @Test("@Model does not attach a second @_PersistedProperty")
    func explicitPersistedProperty() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip {
                @_PersistedProperty var name: String
            }
            """,
            expandedSource: """
                final class Trip {
                \(persistedProperty("var name: String", key: "name"))

                \(modelMembers(
                    of: "Trip",
                    metadata: [
                        #"SwiftData.Schema.PropertyMetadata(name: "name", keypath: \Trip.name, defaultValue: nil, metadata: nil)"#
                    ],
                    keys: ["name"]
                ))
                }

                \(modelConformances(of: "Trip"))
                """
        )
    }

    @Test(
        "@_PersistedProperty adds nothing to a declaration @Model would not persist",
        arguments: ["let name: String", "static var name: String", "var name: String { \"x\" }"]
    )
    func persistedPropertyOnOtherDeclarations(declaration: String) {
        assertSwiftDataExpansion("@_PersistedProperty \(declaration)", expandedSource: declaration)
    }

    @Test("@Attribute, @Relationship, @Transient, #Unique and #Index expand to nothing")
    func markersExpandToNothing() {
        assertSwiftDataExpansion(
            #"""
            struct Plain {
                #Unique<Plain>([\.name])
                #Index<Plain>([\.name])
                @Attribute(.unique) var name: String
                @Relationship(deleteRule: .cascade) var stops: [Stop]
                @Transient var scratch = 0
            }
            """#,
            expandedSource: """
                struct Plain {
                    var name: String
                    var stops: [Stop]
                    var scratch = 0
                }
                """,
            macros: swiftDataMarkerMacros
        )
    }
}
