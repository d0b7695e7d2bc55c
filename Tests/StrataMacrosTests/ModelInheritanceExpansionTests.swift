import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// `@Model` on classes of a hierarchy: a class that may have subclasses gets a class schema
/// whose key paths are rooted at the class it is asked of, and lists its backing data; a
/// subclass of a model class (which the compiler reports as already conforming to
/// `PersistentModel`) gets its own backing data and the overrides.
@Suite("@Model expansion: class inheritance")
struct ModelInheritanceExpansionTests {
    /// The macros as the compiler sees them on a subclass of a model class: it conforms to
    /// `PersistentModel` and `Observable` through its superclass, so neither is asked for.
    static let subclassMacros: [String: MacroSpec] = swiftDataMacros.merging(
        ["Model": MacroSpec(type: ModelMacro.self, conformances: [])], uniquingKeysWith: { _, new in new })

    @Test("a class that is not final: a class schema rooted at the class asked, and its backing data listed")
    func openRoot() {
        assertSwiftDataExpansion(
            """
            @Model class Trip {
                #Unique<Trip>([\\.name])
                var name: String
                init(name: String) { self.name = name }
            }
            """,
            expandedSource: #"""
                class Trip {
                \#(persistedProperty("var name: String", key: "name"))
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

                    public typealias _$RootModel = Trip

                    public class var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                        Self._$schemaMetadata(rootedAt: Self.self)
                    }

                    private static func _$schemaMetadata<_$Root: Trip>(rootedAt root: _$Root.Type) -> [SwiftData.Schema.PropertyMetadata] {
                        [
                            SwiftData.Schema.PropertyMetadata(name: "name", keypath: \_$Root.name, defaultValue: nil, metadata: nil),
                        ]
                    }

                    public required init(backingData: any SwiftData.BackingData<Trip>) {
                        _name = _SwiftDataNoType()
                        self._$backingData = SwiftData._ModelStorage<Trip>(adopting: backingData)
                    }

                    public func _$row() -> SwiftData._ModelRow? {
                        SwiftData._row(of: &_$backingData)
                    }

                    public func _$keepRow(_ row: SwiftData._ModelRow) -> SwiftData._PendingValues? {
                        SwiftData._keepRow(row, in: &_$backingData)
                    }

                    @Transient @exclusivity(unchecked) private var _$observationRegistrar = SwiftData._ModelObservationRegistrar()

                    public class var _$constraints: SwiftData._ModelConstraints {
                        SwiftData._ModelConstraints(unique: [[\Trip.name]], indexes: [])
                    }

                    public func _$backingDataChain() -> [SwiftData._StrataBackingStorage] {
                        [SwiftData._prepareBacking(&_$backingData)]
                    }
                }

                \#(modelConformances(of: "Trip"))
                """#
        )
    }

    @Test("an open class's overridable members are open")
    func openClass() {
        assertSwiftDataExpansion(
            """
            @Model open class Item {
            }
            """,
            expandedSource: #"""
                open class Item {

                    @Transient @exclusivity(unchecked) private var _$backingData = SwiftData._ModelStorage<Item>()

                    public var persistentBackingData: any SwiftData.BackingData<Item> {
                        get {
                            SwiftData._prepareBacking(&_$backingData)
                        }
                        set {
                            _$backingData = SwiftData._ModelStorage<Item>(adopting: newValue)
                        }
                    }

                    public typealias _$RootModel = Item

                    open class var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                        Self._$schemaMetadata(rootedAt: Self.self)
                    }

                    private static func _$schemaMetadata<_$Root: Item>(rootedAt root: _$Root.Type) -> [SwiftData.Schema.PropertyMetadata] {
                        []
                    }

                    public required init(backingData: any SwiftData.BackingData<Item>) {
                        self._$backingData = SwiftData._ModelStorage<Item>(adopting: backingData)
                    }

                    public func _$row() -> SwiftData._ModelRow? {
                        SwiftData._row(of: &_$backingData)
                    }

                    public func _$keepRow(_ row: SwiftData._ModelRow) -> SwiftData._PendingValues? {
                        SwiftData._keepRow(row, in: &_$backingData)
                    }

                    @Transient @exclusivity(unchecked) private var _$observationRegistrar = SwiftData._ModelObservationRegistrar()

                    open class var _$constraints: SwiftData._ModelConstraints {
                        SwiftData._ModelConstraints(unique: [], indexes: [])
                    }

                    open func _$backingDataChain() -> [SwiftData._StrataBackingStorage] {
                        [SwiftData._prepareBacking(&_$backingData)]
                    }
                }

                \#(modelConformances(of: "Item"))
                """#
        )
    }

    @Test("a subclass of a model class: its own backing data, the root's initialiser, the overrides, no conformances")
    func subclass() {
        assertSwiftDataExpansion(
            """
            @Model class BusinessTrip: Trip {
                var perdiem: Double = 0
                init(name: String, perdiem: Double) {
                    self.perdiem = perdiem
                    super.init(name: name)
                }
            }
            """,
            expandedSource: #"""
                class BusinessTrip: Trip {
                \#(persistedProperty("var perdiem: Double", key: "perdiem"))
                    init(name: String, perdiem: Double) {
                        self.perdiem = perdiem
                        super.init(name: name)
                    }

                    @Transient @exclusivity(unchecked) private var _$backingData = SwiftData._ModelStorage<BusinessTrip>()

                    public override class var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                        super.schemaMetadata + Self._$schemaMetadata(rootedAt: Self.self)
                    }

                    private static func _$schemaMetadata<_$Root: BusinessTrip>(rootedAt root: _$Root.Type) -> [SwiftData.Schema.PropertyMetadata] {
                        [
                            SwiftData.Schema.PropertyMetadata(name: "perdiem", keypath: \_$Root.perdiem, defaultValue: (0) as Double, metadata: nil),
                        ]
                    }

                    public required init(backingData: any SwiftData.BackingData<_$RootModel>) {
                        _perdiem = _SwiftDataNoType()
                        self._$backingData = SwiftData._ModelStorage<BusinessTrip>(inheriting: backingData)
                        super.init(backingData: backingData)
                    }

                    @Transient @exclusivity(unchecked) private var _$observationRegistrar = SwiftData._ModelObservationRegistrar()

                    public override class var _$constraints: SwiftData._ModelConstraints {
                        SwiftData._ModelConstraints(unique: [], indexes: [])
                    }

                    public override func _$backingDataChain() -> [SwiftData._StrataBackingStorage] {
                        super._$backingDataChain() + [SwiftData._prepareBacking(&_$backingData)]
                    }
                }
                """#,
            macros: Self.subclassMacros
        )
    }

    @Test("a class listing a protocol first is still a root when the compiler asks for PersistentModel")
    func protocolFirst() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip: Named {
            }
            """,
            expandedSource: """
                final class Trip: Named {

                \(modelMembers(of: "Trip"))
                }

                \(modelConformances(of: "Trip"))
                """
        )
    }

    @Test("a class listing PersistentModel is a root even when the compiler asks for nothing")
    func listedPersistentModelIsRoot() {
        assertSwiftDataExpansion(
            """
            @Model final class Trip: PersistentModel {
            }
            """,
            expandedSource: """
                final class Trip: PersistentModel {

                \(modelMembers(of: "Trip"))
                }
                """,
            macros: Self.subclassMacros
        )
    }
}

@Suite("@Model expansion: properties inside #if")
struct ModelConditionalExpansionTests {
    /// (The test harness does not attach `@_PersistedProperty` inside `#if` as the compiler does,
    /// so the properties there stay as written; `ConditionalPropertyTests` compiles and runs them.)
    @Test("properties inside #if clauses: their schema entries and storage under the same conditions")
    func conditionalProperties() {
        assertSwiftDataExpansion(
            """
            @Model final class Gadget {
                var name: String
                #if os(Linux)
                var kernel: String = "linux"
                #else
                var other: Int = 0
                #endif
            }
            """,
            expandedSource: #"""
                final class Gadget {
                \#(persistedProperty("var name: String", key: "name"))
                    #if os(Linux)
                    var kernel: String = "linux"
                    #else
                    var other: Int = 0
                    #endif

                    @Transient @exclusivity(unchecked) private var _$backingData = SwiftData._ModelStorage<Gadget>()

                    public var persistentBackingData: any SwiftData.BackingData<Gadget> {
                        get {
                            SwiftData._prepareBacking(&_$backingData)
                        }
                        set {
                            _$backingData = SwiftData._ModelStorage<Gadget>(adopting: newValue)
                        }
                    }

                    public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                        var metadata: [SwiftData.Schema.PropertyMetadata] = []
                        metadata.append(SwiftData.Schema.PropertyMetadata(name: "name", keypath: \Gadget.name, defaultValue: nil, metadata: nil))
                        #if os(Linux)
                        metadata.append(SwiftData.Schema.PropertyMetadata(name: "kernel", keypath: \Gadget.kernel, defaultValue: ("linux") as String, metadata: nil))
                        #else
                        metadata.append(SwiftData.Schema.PropertyMetadata(name: "other", keypath: \Gadget.other, defaultValue: (0) as Int, metadata: nil))
                        #endif
                        return metadata
                    }

                    public required init(backingData: any SwiftData.BackingData<Gadget>) {
                        _name = _SwiftDataNoType()
                        #if os(Linux)
                        _kernel = _SwiftDataNoType()
                        #else
                        _other = _SwiftDataNoType()
                        #endif
                        self._$backingData = SwiftData._ModelStorage<Gadget>(adopting: backingData)
                    }

                    public static func _$model(object: AnyObject, context: SwiftData.ModelContext) -> Gadget {
                        Gadget(_$storage: SwiftData._ModelStorage<Gadget>(object: object, context: context))
                    }

                    private init(_$storage storage: SwiftData._ModelStorage<Gadget>) {
                        _name = _SwiftDataNoType()
                        #if os(Linux)
                        _kernel = _SwiftDataNoType()
                        #else
                        _other = _SwiftDataNoType()
                        #endif
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
                        SwiftData._ModelConstraints(unique: [], indexes: [])
                    }
                }

                \#(modelConformances(of: "Gadget"))
                """#
        )
    }

    @Test("#Unique and #Index inside #if clauses: gathered under the same conditions")
    func conditionalConstraints() {
        assertSwiftDataExpansion(
            """
            @Model final class Badge {
                #Unique<Badge>([\\.code])
                #if os(Linux)
                #Unique<Badge>([\\.name, \\.code])
                #Index<Badge>([\\.name])
                #elseif DEBUG
                #Index<Badge>([\\.code])
                #endif
            }
            """,
            expandedSource: #"""
                final class Badge {
                    #if os(Linux)
                    #Unique<Badge>([\.name, \.code])
                    #Index<Badge>([\.name])
                    #elseif DEBUG
                    #Index<Badge>([\.code])
                    #endif

                    @Transient @exclusivity(unchecked) private var _$backingData = SwiftData._ModelStorage<Badge>()

                    public var persistentBackingData: any SwiftData.BackingData<Badge> {
                        get {
                            SwiftData._prepareBacking(&_$backingData)
                        }
                        set {
                            _$backingData = SwiftData._ModelStorage<Badge>(adopting: newValue)
                        }
                    }

                    public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
                        []
                    }

                    public required init(backingData: any SwiftData.BackingData<Badge>) {
                        self._$backingData = SwiftData._ModelStorage<Badge>(adopting: backingData)
                    }

                    public static func _$model(object: AnyObject, context: SwiftData.ModelContext) -> Badge {
                        Badge(_$storage: SwiftData._ModelStorage<Badge>(object: object, context: context))
                    }

                    private init(_$storage storage: SwiftData._ModelStorage<Badge>) {
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
                        var unique: [[AnyKeyPath]] = []
                        var indexes: [[AnyKeyPath]] = []
                        unique.append(contentsOf: [[\Badge.code]])
                        #if os(Linux)
                        unique.append(contentsOf: [[\Badge.name, \Badge.code]])
                        indexes.append(contentsOf: [[\Badge.name]])
                        #elseif DEBUG
                        indexes.append(contentsOf: [[\Badge.code]])
                        #endif
                        return SwiftData._ModelConstraints(unique: unique, indexes: indexes)
                    }
                }

                \#(modelConformances(of: "Badge"))
                """#
        )
    }
}
