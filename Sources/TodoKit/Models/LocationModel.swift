import Foundation

/// A place where to-dos are to be done. Several to-dos may share one.
public struct LocationModel: Codable, Equatable, Sendable, Identifiable {
    public var id: UUID
    /// Degrees north, -90...90.
    public var latitude: Double
    /// Degrees east, -180...180.
    public var longitude: Double
    /// Metres above sea level, if known.
    public var altitude: Double?
    public var placeName: String?

    public init(id: UUID = UUID(), latitude: Double, longitude: Double, altitude: Double? = nil, placeName: String? = nil) {
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.placeName = placeName
    }

    /// Whether the other location is the same place: equal values whatever the ids.
    public func isSamePlace(as other: LocationModel) -> Bool {
        latitude == other.latitude && longitude == other.longitude && altitude == other.altitude
            && placeName == other.placeName
    }

    /// The first rule the values break, in words; `nil` when they are a place on Earth. The
    /// model file sets the same bounds, which the save enforces; this gives the interfaces a
    /// sentence before any Core Data work.
    public var problem: String? {
        if !latitude.isFinite || !(-90...90).contains(latitude) {
            return "latitude \(latitude) is not between -90 and 90"
        }
        if !longitude.isFinite || !(-180...180).contains(longitude) {
            return "longitude \(longitude) is not between -180 and 180"
        }
        if let altitude, !altitude.isFinite {
            return "altitude \(altitude) is not a number of metres"
        }
        return nil
    }
}
