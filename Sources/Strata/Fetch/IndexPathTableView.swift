import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
    /// The table and collection view members of `IndexPath` that apps get from UIKit (and
    /// AppKit), which Foundation on Linux lacks: a fetched results controller's index paths
    /// are read and made with them.
    ///
    /// ```swift
    /// let path = IndexPath(row: 2, section: 0)
    /// path.section   // 0
    /// path.row       // 2
    /// ```
    ///
    /// As in UIKit, they are for index paths of exactly two indexes (section, then row or
    /// item); using them on another stops the program with UIKit's message.
    extension IndexPath {
        /// An index path of a row in a section of a table view.
        public init(row: Int, section: Int) {
            self.init(indexes: [section, row])
        }

        /// An index path of an item in a section of a collection view.
        public init(item: Int, section: Int) {
            self.init(indexes: [section, item])
        }

        /// The section: the first index.
        public var section: Int {
            get {
                Self.checkTwoIndexes(count)
                return self[0]
            }
            set {
                Self.checkTwoIndexes(count)
                self[0] = newValue
            }
        }

        /// The row in the section: the second index.
        public var row: Int {
            get {
                Self.checkTwoIndexes(count)
                return self[1]
            }
            set {
                Self.checkTwoIndexes(count)
                self[1] = newValue
            }
        }

        /// The item in the section: the second index.
        public var item: Int {
            get {
                Self.checkTwoIndexes(count)
                return self[1]
            }
            set {
                Self.checkTwoIndexes(count)
                self[1] = newValue
            }
        }

        /// UIKit's check, with its message.
        private static func checkTwoIndexes(_ count: Int) {
            precondition(
                count == 2,
                "Invalid index path for use with UITableView. Index paths passed to table view must contain exactly "
                    + "two indices specifying the section and row. Please use the category on NSIndexPath in "
                    + "NSIndexPath+UIKitAdditions.h if possible.")
        }
    }
#endif
