export interface UserData {
  userId: string;
  firstName: string;
  lastName: string;
  email: string;
  role: string;
}

export type UserEvent = { type: 'UserCreated'; data: UserData };

export const userStream = (businessId: string, userId: string) => `user-${businessId}-${userId}`;
