import Foundation
import Observation
import SwiftData

// Models written as `@Model` expands them (the contract of Sources/StrataMacros/ModelMacro),
// so that the runtime is tested apart from the macro.

final class HandTrip {
    var name: String {
        @storageRestrictions(accesses: _$backingData, initializes: _name)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "name")
            _name = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.name)
            return self._$backingData.getValue(forKey: "name")
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.name) {
                self._$backingData.setValue(newValue, forKey: "name")
            }
        }
    }
    private var _name: _SwiftDataNoType

    var days: Int {
        @storageRestrictions(accesses: _$backingData, initializes: _days)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "days")
            _days = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.days)
            return self._$backingData.getValue(forKey: "days")
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.days) {
                self._$backingData.setValue(newValue, forKey: "days")
            }
        }
    }
    private var _days: _SwiftDataNoType

    var code: String? {
        @storageRestrictions(accesses: _$backingData, initializes: _code)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "code")
            _code = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.code)
            return self._$backingData.getValue(forKey: "code")
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.code) {
                self._$backingData.setValue(newValue, forKey: "code")
            }
        }
    }
    private var _code: _SwiftDataNoType

    var stops: [HandStop] {
        @storageRestrictions(accesses: _$backingData, initializes: _stops)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "stops")
            _stops = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.stops)
            return self._$backingData.getValue(forKey: "stops")
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.stops) {
                self._$backingData.setValue(newValue, forKey: "stops")
            }
        }
    }
    private var _stops: _SwiftDataNoType

    var scratch = 0

    init(name: String, days: Int = 1, code: String? = nil) {
        self.name = name
        self.days = days
        self.code = code
        self.stops = []
    }

    private var _$backingData: SwiftData._StrataBackingData<HandTrip> = SwiftData._StrataBackingData<HandTrip>()
    public var persistentBackingData: any SwiftData.BackingData<HandTrip> {
        get { _$backingData }
        set { _$backingData = SwiftData._StrataBackingData<HandTrip>.adopting(newValue) }
    }
    public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
        [
            SwiftData.Schema.PropertyMetadata(name: "name", keypath: \HandTrip.name, defaultValue: nil, metadata: nil),
            SwiftData.Schema.PropertyMetadata(name: "days", keypath: \HandTrip.days, defaultValue: nil, metadata: nil),
            SwiftData.Schema.PropertyMetadata(
                name: "code", keypath: \HandTrip.code, defaultValue: nil, metadata: SwiftData.Schema.Attribute(.unique)),
            SwiftData.Schema.PropertyMetadata(
                name: "stops", keypath: \HandTrip.stops, defaultValue: ([]) as [HandStop],
                metadata: SwiftData.Schema.Relationship(deleteRule: .cascade, inverse: \HandStop.trip)),
        ]
    }
    public required init(backingData: any SwiftData.BackingData<HandTrip>) {
        _name = _SwiftDataNoType()
        _days = _SwiftDataNoType()
        _code = _SwiftDataNoType()
        _stops = _SwiftDataNoType()
        self._$backingData = SwiftData._StrataBackingData<HandTrip>.adopting(backingData)
    }
    private let _$observationRegistrar = Observation.ObservationRegistrar()
}

extension HandTrip: SwiftData.PersistentModel {}
extension HandTrip: Observation.Observable {}

final class HandStop {
    var title: String {
        @storageRestrictions(accesses: _$backingData, initializes: _title)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "title")
            _title = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.title)
            return self._$backingData.getValue(forKey: "title")
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.title) {
                self._$backingData.setValue(newValue, forKey: "title")
            }
        }
    }
    private var _title: _SwiftDataNoType

    var trip: HandTrip? {
        @storageRestrictions(accesses: _$backingData, initializes: _trip)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "trip")
            _trip = _SwiftDataNoType()
        }
        get {
            _$observationRegistrar.access(self, keyPath: \.trip)
            return self._$backingData.getValue(forKey: "trip")
        }
        set {
            _$observationRegistrar.withMutation(of: self, keyPath: \.trip) {
                self._$backingData.setValue(newValue, forKey: "trip")
            }
        }
    }
    private var _trip: _SwiftDataNoType

    init(title: String, trip: HandTrip? = nil) {
        self.title = title
        self.trip = trip
    }

    private var _$backingData: SwiftData._StrataBackingData<HandStop> = SwiftData._StrataBackingData<HandStop>()
    public var persistentBackingData: any SwiftData.BackingData<HandStop> {
        get { _$backingData }
        set { _$backingData = SwiftData._StrataBackingData<HandStop>.adopting(newValue) }
    }
    public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
        [
            SwiftData.Schema.PropertyMetadata(name: "title", keypath: \HandStop.title, defaultValue: nil, metadata: nil),
            SwiftData.Schema.PropertyMetadata(name: "trip", keypath: \HandStop.trip, defaultValue: nil, metadata: nil),
        ]
    }
    public required init(backingData: any SwiftData.BackingData<HandStop>) {
        _title = _SwiftDataNoType()
        _trip = _SwiftDataNoType()
        self._$backingData = SwiftData._StrataBackingData<HandStop>.adopting(backingData)
    }
    private let _$observationRegistrar = Observation.ObservationRegistrar()
}

extension HandStop: SwiftData.PersistentModel {}
extension HandStop: Observation.Observable {}

enum HandMood: String, Codable, Sendable, CaseIterable {
    case calm
    case busy
}

struct HandPlace: Codable, Equatable, Sendable {
    var latitude: Double
    var longitude: Double
    var label: String?
}

final class HandNote {
    var mood: HandMood {
        @storageRestrictions(accesses: _$backingData, initializes: _mood)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "mood")
            _mood = _SwiftDataNoType()
        }
        get { self._$backingData.getValue(forKey: "mood") }
        set { self._$backingData.setValue(newValue, forKey: "mood") }
    }
    private var _mood: _SwiftDataNoType

    var tags: [String] {
        @storageRestrictions(accesses: _$backingData, initializes: _tags)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "tags")
            _tags = _SwiftDataNoType()
        }
        get { self._$backingData.getValue(forKey: "tags") }
        set { self._$backingData.setValue(newValue, forKey: "tags") }
    }
    private var _tags: _SwiftDataNoType

    var place: HandPlace? {
        @storageRestrictions(accesses: _$backingData, initializes: _place)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "place")
            _place = _SwiftDataNoType()
        }
        get { self._$backingData.getValue(forKey: "place") }
        set { self._$backingData.setValue(newValue, forKey: "place") }
    }
    private var _place: _SwiftDataNoType

    var when: Date {
        @storageRestrictions(accesses: _$backingData, initializes: _when)
        init(initialValue) {
            _$backingData.setValue(initialValue, forKey: "when")
            _when = _SwiftDataNoType()
        }
        get { self._$backingData.getValue(forKey: "when") }
        set { self._$backingData.setValue(newValue, forKey: "when") }
    }
    private var _when: _SwiftDataNoType

    init(mood: HandMood, tags: [String], place: HandPlace?, when: Date) {
        self.mood = mood
        self.tags = tags
        self.place = place
        self.when = when
    }

    private var _$backingData = SwiftData._StrataBackingData<HandNote>()
    public var persistentBackingData: any SwiftData.BackingData<HandNote> {
        get { _$backingData }
        set { _$backingData = SwiftData._StrataBackingData<HandNote>.adopting(newValue) }
    }
    public static var schemaMetadata: [SwiftData.Schema.PropertyMetadata] {
        [
            SwiftData.Schema.PropertyMetadata(name: "mood", keypath: \HandNote.mood, defaultValue: nil, metadata: nil),
            SwiftData.Schema.PropertyMetadata(name: "tags", keypath: \HandNote.tags, defaultValue: nil, metadata: nil),
            SwiftData.Schema.PropertyMetadata(name: "place", keypath: \HandNote.place, defaultValue: nil, metadata: nil),
            SwiftData.Schema.PropertyMetadata(name: "when", keypath: \HandNote.when, defaultValue: nil, metadata: nil),
        ]
    }
    public required init(backingData: any SwiftData.BackingData<HandNote>) {
        _mood = _SwiftDataNoType()
        _tags = _SwiftDataNoType()
        _place = _SwiftDataNoType()
        _when = _SwiftDataNoType()
        self._$backingData = SwiftData._StrataBackingData<HandNote>.adopting(backingData)
    }
}

extension HandNote: SwiftData.PersistentModel {}
extension HandNote: Observation.Observable {}
