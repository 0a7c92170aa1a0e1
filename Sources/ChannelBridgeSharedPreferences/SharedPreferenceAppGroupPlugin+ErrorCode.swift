extension SharedPreferenceAppGroupPlugin {
    /// The `code` of every error the plugin answers with. Each error's message names what is
    /// wrong (the method, key, argument, group or file) and its `details` map carries the same
    /// facts for programs.
    public enum ErrorCode {
        /// A call other than `setAppGroup` came before any group was chosen, and more or fewer than
        /// one group is entitled (with exactly one, that one is the default).
        ///
        /// Answered exactly once per call. The published iOS plugin replies twice here: this error,
        /// then the method's own reply from its default (unnamed) suite; a Flutter engine drops the
        /// second reply, a socket peer would see a stray one. We answer the error only.
        public static let appGroupHasNotBeenSet = "APP_GROUP_HAS_NOT_BEEN_SET"
        /// `setAppGroup` or a change-stream `listen` named a group this host is not entitled to.
        /// `setAppGroup` then leaves the session's group as it was. Details: `appGroup`,
        /// `entitledAppGroups`.
        public static let appGroupNotEntitled = "APP_GROUP_NOT_ENTITLED"
        /// A typed getter found a value of another type, or `appendToList` found a key that holds
        /// something other than a list (`wantedType` `List`; nothing is written). Details: `key`,
        /// `storedType`, `wantedType`.
        public static let wrongType = "WRONG_TYPE"
        /// The arguments are not a map, or `key`/`appGroup`/`value`/`values` is missing or of the wrong
        /// type. Details: `method`, `argument`.
        public static let invalidArguments = "INVALID_ARGUMENTS"
        /// The store failed (a corrupt or unreadable preferences file, a failed write). The message
        /// is the store's and names the file. Details: `storeCode`, `path` (when known).
        public static let storeError = "STORE_ERROR"
        /// The host gave the plugin no preference store.
        public static let storeUnavailable = "STORE_UNAVAILABLE"
    }
}
